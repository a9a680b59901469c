//! One module per subcommand, each with its `Args` and `run`.

pub mod args;
pub mod check;
pub mod completions;
pub mod corpus;
pub mod detect;
pub mod eval;
pub mod extract;
pub mod index;
pub mod man;
pub mod serve;
pub mod similar;
pub mod text;
