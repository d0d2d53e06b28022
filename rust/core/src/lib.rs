//! The engine of toolwire: incremental JSON scanner, decoders and the tool-call accumulator.
//!
//! This crate knows nothing of Python; the binding crate converts in and out.

#![forbid(unsafe_code)]

pub mod accumulator;
mod aws_frames;
pub mod decode;
pub mod dialects;
mod error_search;
pub mod framing;
mod json_seq;
pub mod json_view;
pub mod kept;
pub mod meta_schema;
mod plan;
mod quick_check;
pub mod replay;
pub mod scanner;
mod search_cost;
mod sse;
mod template;
#[cfg(test)]
mod test_corpora;
pub mod validator;
pub mod violation;

pub use accumulator::{
    Accumulator, Arguments, ChoiceSummary, Config, Emit, FinishKind, Fragment, HandedOver, Identity, Limits, REFUSED,
    Step, ToolChoice,
};
pub use decode::{Canonical, Decoder, EventExtras, Format, OutputItem};
pub use json_view::ChunkError;
pub use meta_schema::{MetaDraft, NotJson, SchemaProblem, schema_problems};
pub use scanner::{ScanError, ScanErrorKind, ScanState, Scanner, ValueKind};
pub use validator::{SchemaError, ToolValidators};
pub use violation::{Level, Severity, Violation, ViolationCode, ViolationData};
