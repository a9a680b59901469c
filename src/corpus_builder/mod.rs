//! The PAN-style corpus builder (being written).
