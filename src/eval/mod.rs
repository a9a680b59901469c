//! PAN's evaluation measures (being written).
