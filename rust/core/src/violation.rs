//! Violation codes, their severities, and violations as data.
//!
//! Mirrors `python/toolwire/_model.py` (`ViolationCode`, `VIOLATION_TABLE`); a Python test asserts that the
//! two tables are equal, so a code added on one side only fails CI.

/// How bad a violation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// Makes the call (or the stream) invalid.
    Error,
    /// Rides on a valid call or result.
    Warning,
    /// Rides on a valid call or result; expected in some contexts.
    Info,
}

impl Severity {
    /// The lowercase name used in Python.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Info => "info",
        }
    }
}

/// Where a code is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// On a call.
    Call,
    /// On the stream result.
    Stream,
    /// On the call while it is held, on the stream once the call was handed over.
    CallOrStream,
}

impl Level {
    /// The name used in Python's table.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Call => "call",
            Self::Stream => "stream",
            Self::CallOrStream => "call/stream",
        }
    }
}

macro_rules! violation_codes {
    ($($code:ident => ($level:ident, $severity:ident, $recoverable:expr)),+ $(,)?) => {
        /// Every contract violation toolwire reports (design.md's table).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms, reason = "the codes are spelled as in Python and the docs")]
        pub enum ViolationCode { $(#[doc = stringify!($code)] $code),+ }

        impl ViolationCode {
            /// Every code, in table order.
            pub const ALL: &'static [ViolationCode] = &[$(ViolationCode::$code),+];

            /// The code's name, as in Python.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$code => stringify!($code)),+ }
            }

            /// Where it is reported.
            pub fn level(self) -> Level {
                match self { $(Self::$code => Level::$level),+ }
            }

            /// Its severity unless the context lowers it.
            pub fn default_severity(self) -> Severity {
                match self { $(Self::$code => Severity::$severity),+ }
            }

            /// Whether the model can fix it on its next turn if told.
            pub fn recoverable(self) -> bool {
                match self { $(Self::$code => $recoverable),+ }
            }
        }
    };
}

violation_codes! {
    MISSING_INDEX => (Call, Warning, false),
    INDEX_REUSED => (Call, Info, false),
    ID_CHANGED => (Call, Warning, false),
    NAME_CHANGED => (Call, Error, true),
    MISSING_ID => (Call, Warning, false),
    MISSING_NAME => (Call, Error, true),
    TYPE_MISSING => (Call, Info, false),
    ARGUMENTS_NOT_STRING => (Call, Warning, false),
    EMPTY_ARGUMENTS => (Call, Info, false),
    ARGUMENTS_NOT_OBJECT => (Call, Error, true),
    INVALID_JSON => (Call, Error, true),
    DUPLICATE_KEY => (Call, Warning, true),
    TRAILING_DATA => (CallOrStream, Error, true),
    TRUNCATED => (Call, Error, true),
    ARGUMENTS_TOO_LARGE => (Call, Error, true),
    TOO_DEEP => (Call, Error, true),
    TOO_MANY_CALLS => (Stream, Error, true),
    UNKNOWN_TOOL => (Call, Error, true),
    MISSING_REQUIRED_ARGUMENT => (Call, Error, true),
    UNEXPECTED_ARGUMENT => (Call, Error, true),
    TYPE_MISMATCH => (Call, Error, true),
    ENUM_OUT_OF_RANGE => (Call, Error, true),
    CONSTRAINT_VIOLATION => (Call, Error, true),
    ARGUMENTS_MISMATCH => (Call, Warning, false),
    REPAIRED => (Call, Info, false),
    FINISH_REASON_MISMATCH => (Stream, Warning, false),
    FINISH_WITHOUT_CALLS => (Stream, Error, false),
    MULTIPLE_FINISH_REASONS => (Stream, Warning, false),
    NO_FINISH_REASON => (Stream, Warning, false),
    STREAM_CUT => (Stream, Error, false),
    TOOL_CHOICE_IGNORED => (Stream, Error, false),
    PROVIDER_ERROR => (Stream, Error, false),
    STREAM_SPLICED => (Stream, Error, false),
    INVALID_ARGUMENT_PATH => (Call, Error, false),
    UNRECOGNIZED_STREAM => (Stream, Error, false),
    VIOLATIONS_OMITTED => (CallOrStream, Error, false),
    VALIDATION_BUDGET_EXCEEDED => (Call, Error, false),
    TEXT_TOO_LARGE => (Stream, Error, false),
    TOO_MANY_CHOICES => (Stream, Error, false),
    OUTPUT_TOO_LARGE => (Stream, Error, false),
    MALFORMED_CALL => (Call, Error, true),
    UNTYPED_VALUE => (Call, Error, true),
    NO_SCHEMA => (Call, Warning, false),
    MISSING_END_MARKER => (CallOrStream, Warning, false),
    MISSING_START_MARKER => (Call, Warning, false),
    ARGUMENTS_AS_STRING => (Call, Warning, false),
    CALL_IN_TEXT => (Call, Info, false),
    MARKER_IN_TEXT => (Stream, Info, false),
    REASONING_CUT => (Stream, Warning, false),
    BUILTIN_TOOL => (Stream, Warning, false),
    MALFORMED_HEADER => (Stream, Warning, false),
    MALFORMED_RESULT => (Call, Error, false),
    MISSING_STRUCTURED_CONTENT => (Call, Error, false),
    WRAPPED_OUTPUT => (Stream, Error, true),
    MISSING_OUTPUT => (Stream, Error, true),
}

/// A payload a violation must not lose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViolationData {
    /// A value held by the caller (the binding keeps provider error payloads as Python objects); its number.
    External(usize),
    /// Structured detail a model can act on: the declared names for an unknown tool, the allowed values or types,
    /// a constraint's keyword and limit.
    Json(serde_json::Value),
    /// The arguments that arrived after their call was over (`TRAILING_DATA`): their text up to
    /// `Limits.max_argument_bytes`, and how many bytes and fragments came. In Python, `{"text", "bytes", "fragments"}`.
    Trailing {
        /// The first bytes, as they came.
        text: Vec<u8>,
        /// Every byte that came.
        bytes: u64,
        /// The fragments they came in.
        fragments: u64,
    },
    /// What a stream sent past one of its limits, counted instead of kept (`TOO_MANY_CALLS`: fragments,
    /// `TOO_MANY_CHOICES`: entries, `TEXT_TOO_LARGE` and `OUTPUT_TOO_LARGE`: bytes). In Python, `{"limit", unit}`.
    Counted {
        /// The limit passed.
        limit: usize,
        /// What `count` counts: `"fragments"`, `"entries"` or `"bytes"`.
        unit: &'static str,
        /// How many came past it.
        count: u64,
    },
    /// How many violations were left out past `Limits.max_violations` (`VIOLATIONS_OMITTED`). In Python,
    /// `{"omitted"}`.
    Omitted(u64),
}

/// One contract violation, as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// What went wrong.
    pub code: ViolationCode,
    /// A sentence for humans.
    pub message: String,
    /// Severity, usually the code's default.
    pub severity: Severity,
    /// The choice concerned.
    pub choice: Option<i64>,
    /// The call concerned, by opening order.
    pub seq: Option<usize>,
    /// The provider's index of that call.
    pub index: Option<i64>,
    /// JSON pointer inside the arguments.
    pub path: Option<String>,
    /// Byte offset inside the arguments text.
    pub offset: Option<u64>,
    /// Payload that must not be lost.
    pub data: Option<ViolationData>,
}

impl Violation {
    /// A violation with the code's default severity and no location.
    #[cold]
    pub fn new(code: ViolationCode, message: String) -> Self {
        Self {
            code,
            message,
            severity: code.default_severity(),
            choice: None,
            seq: None,
            index: None,
            path: None,
            offset: None,
            data: None,
        }
    }

    /// Whether the code is recoverable by the model.
    pub fn recoverable(&self) -> bool {
        self.code.recoverable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once_and_spelled_as_its_name() {
        let mut names: Vec<&str> = ViolationCode::ALL.iter().map(|code| code.as_str()).collect();
        assert_eq!(names.len(), 55);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 55);
        assert_eq!(ViolationCode::TRAILING_DATA.as_str(), "TRAILING_DATA");
    }

    #[test]
    fn errors_are_the_codes_that_invalidate() {
        assert_eq!(ViolationCode::INVALID_JSON.default_severity(), Severity::Error);
        assert_eq!(ViolationCode::TYPE_MISSING.default_severity(), Severity::Info);
        assert_eq!(ViolationCode::TRAILING_DATA.level(), Level::CallOrStream);
    }
}
