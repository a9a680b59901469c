//! One module per subcommand, each with its `Args` and `run`.

pub mod corpus;
pub mod detect;
pub mod eval;
