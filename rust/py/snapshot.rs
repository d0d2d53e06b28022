//! Honest partial arguments: a call's arguments as they stand, built as its bytes arrive.
//!
//! Complete values are Python values; the value still arriving is a `toolwire.Pending` (its kind and its text so
//! far), never shown as final: `{"n": 12` is `{"n": Pending("number", "12")}`, not `{"n": 12}`. A member whose key
//! has arrived but whose value has not started is `Pending("value", "")`; a key still arriving is not shown.
//!
//! The Python objects are built once, as values complete, into the containers already handed out: a snapshot only
//! places the pending leaf, so asking for one after every fragment costs time proportional to what changed, and the
//! whole stream stays linear in its bytes. The snapshot is the live value, updated in place by later fragments
//! (copy it to keep one). Validation is the scanner's job: on text that is not JSON the builder stops where the text
//! went wrong and keeps what it had.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use toolwire_core::json_view::{Path, string};

use crate::{output, values};

/// The partial value of one call's arguments.
#[derive(Default)]
pub(crate) struct Partial {
    stack: Vec<Frame>,
    root: Option<Py<PyAny>>,
    token: Token,
    failed: bool,
}

enum Frame {
    Object {
        dict: Py<PyDict>,
        expect: Expect,
        key: Option<Py<PyString>>,
        // The pending placeholder is in the dict at `key`.
        shown: bool,
    },
    Array {
        list: Py<PyList>,
        expect: Expect,
        // The pending placeholder is the list's last item.
        shown: bool,
    },
}

/// What a container expects next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A key (or `}`) in an object, a value (or `]`) in an array: right after the opening bracket.
    First,
    /// A key in an object, a value in an array: after a comma.
    Next,
    /// An object's colon.
    Colon,
    /// An object member's value.
    Value,
    /// A comma or the closing bracket.
    CommaOrEnd,
}

#[derive(Default)]
enum Token {
    #[default]
    None,
    String {
        raw: Vec<u8>,
        escaped: bool,
        key: bool,
    },
    Number(Vec<u8>),
    Literal(Vec<u8>),
}

impl Partial {
    /// Read the next argument bytes.
    pub(crate) fn feed(&mut self, py: Python<'_>, bytes: &[u8]) -> PyResult<()> {
        let mut position = 0;
        while position < bytes.len() && !self.failed {
            position = match &mut self.token {
                Token::String { raw, escaped, .. } => {
                    let rest = bytes.get(position..).unwrap_or_default();
                    if let Some(end) = string_end(rest, escaped) {
                        raw.extend_from_slice(rest.get(..end).unwrap_or_default());
                        self.string_done(py)?;
                        position + end + 1
                    } else {
                        raw.extend_from_slice(rest);
                        bytes.len()
                    }
                }
                Token::Number(_) | Token::Literal(_) => {
                    let rest = bytes.get(position..).unwrap_or_default();
                    let number = matches!(self.token, Token::Number(_));
                    let taken = rest
                        .iter()
                        .take_while(|byte| {
                            if number {
                                byte.is_ascii_digit() || matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E')
                            } else {
                                byte.is_ascii_alphabetic()
                            }
                        })
                        .count();
                    if let Token::Number(raw) | Token::Literal(raw) = &mut self.token {
                        raw.extend_from_slice(rest.get(..taken).unwrap_or_default());
                    }
                    if taken < rest.len() {
                        self.scalar_done(py)?;
                    }
                    position + taken
                }
                Token::None => {
                    let byte = bytes.get(position).copied().unwrap_or_default();
                    self.structural(py, byte)?;
                    position + 1
                }
            };
        }
        Ok(())
    }

    /// The arguments as they stand: None before any value started.
    pub(crate) fn snapshot(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let pending = self.pending(py)?;
        let Some(frame) = self.stack.last_mut() else {
            return Ok(match &self.root {
                Some(root) => Some(root.clone_ref(py)),
                None => pending.map(Bound::unbind),
            });
        };
        match frame {
            Frame::Object { dict, key, shown, .. } => {
                if let Some(key) = key {
                    let placeholder = match pending {
                        Some(pending) => pending,
                        None => pending_value(py, "value", "")?,
                    };
                    dict.bind(py).set_item(key.bind(py), placeholder)?;
                    *shown = true;
                }
            }
            Frame::Array { list, shown, .. } => {
                if let Some(pending) = pending {
                    let list = list.bind(py);
                    if *shown {
                        list.set_item(list.len().saturating_sub(1), pending)?;
                    } else {
                        list.append(pending)?;
                        *shown = true;
                    }
                }
            }
        }
        Ok(self.root.as_ref().map(|root| root.clone_ref(py)))
    }

    /// The containers still open, outermost first.
    pub(crate) fn open_values(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.stack
            .iter()
            .map(|frame| match frame {
                Frame::Object { dict, .. } => dict.clone_ref(py).into_any(),
                Frame::Array { list, .. } => list.clone_ref(py).into_any(),
            })
            .collect()
    }

    /// The scalar still arriving, as a `Pending`.
    fn pending<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.token {
            Token::None | Token::String { key: true, .. } => Ok(None),
            Token::String { raw, .. } => {
                // Lone surrogates a `\u` escape made come back as the string held them (`surrogatepass`).
                let text = output::text(py, &decoded_prefix(raw))?;
                pending(py, "string", text.into_any()).map(Some)
            }
            Token::Number(raw) => pending_value(py, "number", &String::from_utf8_lossy(raw)).map(Some),
            Token::Literal(raw) => pending_value(py, "literal", &String::from_utf8_lossy(raw)).map(Some),
        }
    }

    fn structural(&mut self, py: Python<'_>, byte: u8) -> PyResult<()> {
        if matches!(byte, b' ' | b'\t' | b'\r' | b'\n') {
            return Ok(());
        }
        let expect = match self.stack.last() {
            Some(Frame::Object { expect, .. } | Frame::Array { expect, .. }) => Some(*expect),
            None if self.root.is_some() => {
                self.failed = true;
                return Ok(());
            }
            None => None,
        };
        let in_object = matches!(self.stack.last(), Some(Frame::Object { .. }));
        let wants_value = match expect {
            None | Some(Expect::Value) => true,
            Some(Expect::First | Expect::Next) => !in_object,
            Some(Expect::Colon | Expect::CommaOrEnd) => false,
        };
        match (byte, expect) {
            (b'"', Some(Expect::First | Expect::Next)) if in_object => {
                self.token = Token::String {
                    raw: Vec::new(),
                    escaped: false,
                    key: true,
                };
            }
            (b':', Some(Expect::Colon)) => self.set_expect(Expect::Value),
            (b',', Some(Expect::CommaOrEnd)) => self.set_expect(Expect::Next),
            (b'}', Some(Expect::First | Expect::CommaOrEnd)) if in_object => {
                self.stack.pop();
            }
            (b']', Some(Expect::First | Expect::CommaOrEnd)) if !in_object => {
                self.stack.pop();
            }
            (b'{', _) if wants_value => {
                let dict = PyDict::new(py);
                self.insert(py, dict.as_any())?;
                self.stack.push(Frame::Object {
                    dict: dict.unbind(),
                    expect: Expect::First,
                    key: None,
                    shown: false,
                });
            }
            (b'[', _) if wants_value => {
                let list = PyList::empty(py);
                self.insert(py, list.as_any())?;
                self.stack.push(Frame::Array {
                    list: list.unbind(),
                    expect: Expect::First,
                    shown: false,
                });
            }
            (b'"', _) if wants_value => {
                self.token = Token::String {
                    raw: Vec::new(),
                    escaped: false,
                    key: false,
                };
            }
            (b'-' | b'0'..=b'9', _) if wants_value => self.token = Token::Number(vec![byte]),
            (b't' | b'f' | b'n', _) if wants_value => self.token = Token::Literal(vec![byte]),
            _ => self.failed = true,
        }
        Ok(())
    }

    fn set_expect(&mut self, next: Expect) {
        if let Some(Frame::Object { expect, .. } | Frame::Array { expect, .. }) = self.stack.last_mut() {
            *expect = next;
        }
    }

    fn string_done(&mut self, py: Python<'_>) -> PyResult<()> {
        let Token::String { raw, key, .. } = std::mem::take(&mut self.token) else {
            return Ok(());
        };
        let mut quoted = Vec::with_capacity(raw.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(&raw);
        quoted.push(b'"');
        let Ok(text) = string(&quoted, &Path::ROOT) else {
            self.failed = true;
            return Ok(());
        };
        let text = output::text(py, &text)?;
        if key {
            if let Some(Frame::Object { key, expect, .. }) = self.stack.last_mut() {
                *key = Some(text.unbind());
                *expect = Expect::Colon;
            }
            return Ok(());
        }
        self.insert(py, text.as_any())
    }

    fn scalar_done(&mut self, py: Python<'_>) -> PyResult<()> {
        let (Token::Number(raw) | Token::Literal(raw)) = std::mem::take(&mut self.token) else {
            return Ok(());
        };
        if let Ok(value) = output::json_bytes(py, &raw) {
            self.insert(py, &value)
        } else {
            self.failed = true;
            Ok(())
        }
    }

    /// Place a value (complete, or a container just opened) where the parent expects it.
    fn insert(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        match self.stack.last_mut() {
            None => self.root = Some(value.clone().unbind()),
            Some(Frame::Object {
                dict,
                expect,
                key,
                shown,
            }) => {
                if let Some(key) = key.take() {
                    dict.bind(py).set_item(key.bind(py), value)?;
                }
                *expect = Expect::CommaOrEnd;
                *shown = false;
            }
            Some(Frame::Array { list, expect, shown }) => {
                let list = list.bind(py);
                if *shown {
                    list.set_item(list.len().saturating_sub(1), value)?;
                } else {
                    list.append(value)?;
                }
                *expect = Expect::CommaOrEnd;
                *shown = false;
            }
        }
        Ok(())
    }
}

/// Where a string's content ends (its closing quote), continuing an escape state across reads.
fn string_end(bytes: &[u8], escaped: &mut bool) -> Option<usize> {
    let mut position = 0;
    loop {
        if *escaped {
            if position >= bytes.len() {
                return None;
            }
            *escaped = false;
            position += 1;
        }
        let found = memchr::memchr2(b'"', b'\\', bytes.get(position..)?)?;
        let at = position + found;
        if bytes.get(at) == Some(&b'"') {
            return Some(at);
        }
        *escaped = true;
        position = at + 1;
    }
}

/// The text of a string's content so far: an escape still arriving (`\`, `\u00`, a high surrogate awaiting its
/// low half, also one left bare by cutting its low half) is left out until it is whole.
fn decoded_prefix(raw: &[u8]) -> Vec<u8> {
    let mut end = raw.len();
    // Twice: cutting an unfinished low half can leave its high half at the end.
    for _ in 0..2 {
        match open_escape(raw.get(..end).unwrap_or_default()) {
            Some(slash) => end = slash,
            None => break,
        }
    }
    let mut quoted = Vec::with_capacity(end + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw.get(..end).unwrap_or_default());
    quoted.push(b'"');
    match string(&quoted, &Path::ROOT) {
        Ok(text) => text.into_owned(),
        Err(_) => String::from_utf8_lossy(raw.get(..end).unwrap_or_default())
            .into_owned()
            .into_bytes(),
    }
}

/// Where the escape that ends `raw` starts, when it is not whole yet (or is a high surrogate awaiting its low half).
fn open_escape(raw: &[u8]) -> Option<usize> {
    let slash = raw.iter().rposition(|byte| *byte == b'\\')?;
    let run = raw
        .get(..=slash)
        .unwrap_or_default()
        .iter()
        .rev()
        .take_while(|byte| **byte == b'\\')
        .count();
    // An odd run of backslashes ending here opens an escape; an even one is escaped backslashes.
    if run % 2 == 0 {
        return None;
    }
    let escape = raw.get(slash + 1..).unwrap_or_default();
    let whole = match escape.first() {
        None => false,
        Some(b'u') => escape.len() >= 5 && !high_surrogate(escape.get(1..5).unwrap_or_default()),
        Some(_) => true,
    };
    (!whole).then_some(slash)
}

fn high_surrogate(digits: &[u8]) -> bool {
    std::str::from_utf8(digits)
        .ok()
        .and_then(|digits| u32::from_str_radix(digits, 16).ok())
        .is_some_and(|unit| (0xD800..0xDC00).contains(&unit))
}

fn pending_value<'py>(py: Python<'py>, kind: &'static str, text: &str) -> PyResult<Bound<'py, PyAny>> {
    pending(py, kind, PyString::new(py, text).into_any())
}

fn pending<'py>(py: Python<'py>, kind: &'static str, text: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let made = values::Pending {
        kind: PyString::intern(py, kind).into_any().unbind(),
        text: text.unbind(),
    };
    Ok(Bound::new(py, made)?.into_any())
}
