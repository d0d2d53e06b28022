//! Python calls of literals, as `pythonic` models write them: where one closes as it arrives, and its JSON text.
//!
//! Twin of the reference's `dialects/_python_literals.py`. [`Extent`] follows a call's text from its `(` to the `)`
//! that closes it, knowing only quotes and brackets, so that a `)` or `]` inside a string or a nested list ends
//! nothing. [`read_call`] reads the whole call `NAME(KEY=VALUE, ...)` exactly as Python's grammar reads these
//! literals: strings in either quote, triple-quoted or not, with `r`/`u` prefixes, escapes decoded and adjacent
//! strings joined; ints (`_`, `0x`/`0o`/`0b`), floats, a sign before a number (ASCII digits only, as the grammar has
//! them); `True`/`False`/`None`; lists and tuples (as arrays); dicts with string keys.
//!
//! Each value is written as JSON text, exactly: an int as its decimal digits (`0x10` is `16`, `-0` is `0`); a float
//! as the literal written when that is JSON number syntax (`1.50`, `1E5`), else as the nearest JSON syntax of the same
//! decimal (`.5` is `0.5`, `5.` is `5.0`, `1_0.5` is `10.5`, `007.5` is `7.5`), so it denotes the same double; a
//! string as a JSON string (non-ASCII kept). What has no JSON form is refused: bytes, f-strings, sets, complex and
//! non-finite numbers, names, calls and any other expression, a dict key that is not a string or is repeated, a
//! string holding a surrogate, an int of more than 4300 decimal digits (Python's own limit on an int's text). A
//! `\N{...}` escape is refused too: the character a name stands for depends on the Unicode version the reader knows,
//! and a call must read the same everywhere.
//!
//! The reference counts code points and this file bytes of `&str`: every position here is a char boundary (the
//! syntax is ASCII, and a char is taken whole), so the two read the same text.

use rustc_hash::FxHashSet;

use crate::accumulator::Limits;

use super::shared::{Read, quoted};

/// The whitespace a call's text may hold between its tokens.
const fn is_space(char: char) -> bool {
    matches!(char, ' ' | '\t' | '\r' | '\n')
}

const fn is_quote(char: char) -> bool {
    matches!(char, '\'' | '"')
}

/// The most decimal digits an int's JSON text may have: Python's default limit on converting an int to text, kept as
/// a rule of its own so that the reading does not depend on the interpreter's setting (and is bounded in time).
const MAX_INT_DIGITS: usize = 4300;
/// An int of more bits than this is at least `2**14285 > 10**4300`: more than [`MAX_INT_DIGITS`] digits.
const MAX_INT_BITS: usize = 14285;
/// The base of the limbs an int is converted to decimal in: the largest power of ten a `u64` holds.
const LIMB: u64 = 1_000_000_000_000_000_000;
const NO_KEYWORD: &str = "an argument without a keyword; a call's arguments are KEY=VALUE";

/// Whether `char` may stand in a function's or keyword's name (ASCII identifiers, as models write them).
pub(crate) const fn is_name_char(char: char, first: bool) -> bool {
    char == '_' || char.is_ascii_alphabetic() || (!first && char.is_ascii_digit())
}

/// Why a call's text is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The text is not a call of keyword arguments: a positional argument, no `=`, a repeated keyword.
    Malformed(String),
    /// A keyword's value is not a Python literal, or is one with no JSON form.
    NoJsonForm(String),
}

fn no_json_form<T>(message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::NoJsonForm(message.into()))
}

fn malformed<T>(message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Malformed(message.into()))
}

// Where a call closes.

/// A call's text from just past its `(`, read as its chars arrive: where its `)` closes it.
///
/// Nesting past `Limits::max_depth` (the call's parentheses counting as 1), a closing bracket that closes nothing
/// open, a `#` (a comment could hide a bracket) and a newline in a one-line string break it. Its text is kept up to
/// `Limits::max_argument_bytes`; past that it is scanned, not stored (`overflow`).
#[derive(Debug)]
pub(crate) struct Extent {
    limit: usize,
    depth_limit: usize,
    /// The closer each open bracket awaits, the call's `)` first.
    stack: Vec<char>,
    /// The quote of the string the cursor is in.
    quote: Option<char>,
    triple: bool,
    escaped: bool,
    /// Quote chars in a row: at a string's start, two may be an empty string or the start of a triple.
    run: u8,
    text: String,
    /// Bytes of the call's text taken, kept or not.
    bytes: usize,
    pub(crate) overflow: bool,
}

impl Extent {
    /// An extent whose call already kept `kept` bytes (its name and `(`).
    pub(crate) fn new(limits: &Limits, kept: usize) -> Self {
        Self {
            limit: limits.max_argument_bytes,
            depth_limit: usize::try_from(limits.max_depth).unwrap_or(usize::MAX),
            stack: vec![')'],
            quote: None,
            triple: false,
            escaped: false,
            run: 0,
            text: String::new(),
            bytes: kept,
            overflow: false,
        }
    }

    /// The text taken so far (empty once it overflowed).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Reads `text` until the call closes or breaks: where it is and the bytes taken, as [`super::shared::JsonReader`]
    /// does (up to and including the char that closed it, all while incomplete, none of the char that broke it).
    pub(crate) fn take(&mut self, text: &str) -> (Read, usize) {
        for (at, char) in text.char_indices() {
            let read = self.step(char);
            if read == Read::Invalid {
                return (Read::Invalid, at);
            }
            self.keep(char);
            if read == Read::Complete {
                return (Read::Complete, at + char.len_utf8());
            }
        }
        (Read::Incomplete, text.len())
    }

    fn step(&mut self, char: char) -> Read {
        if let Some(quote) = self.quote {
            if !self.in_string(quote, char) {
                return Read::Invalid;
            }
            if self.quote.is_some() || self.run == 0 {
                return Read::Incomplete;
            }
            // The opening of an empty string ('') closed before this char, which is read outside strings.
            self.run = 0;
        }
        match char {
            '\'' | '"' => {
                (self.quote, self.triple, self.run) = (Some(char), false, 1);
                Read::Incomplete
            }
            '(' | '[' | '{' => {
                if self.stack.len() >= self.depth_limit {
                    return Read::Invalid;
                }
                self.stack.push(match char {
                    '(' => ')',
                    '[' => ']',
                    _ => '}',
                });
                Read::Incomplete
            }
            ')' | ']' | '}' => {
                if self.stack.last() != Some(&char) {
                    return Read::Invalid;
                }
                self.stack.pop();
                if self.stack.is_empty() {
                    Read::Complete
                } else {
                    Read::Incomplete
                }
            }
            '#' => Read::Invalid,
            _ => Read::Incomplete,
        }
    }

    /// One char inside a string quoted by `quote`; false when it breaks the call. Clears `quote` when the string
    /// closes.
    fn in_string(&mut self, quote: char, char: char) -> bool {
        if self.run > 0 && !self.triple {
            // Still deciding between '', ''' and 'x: the chars right after the opening quote.
            if char == quote && self.run == 1 {
                self.run = 2;
                return true;
            }
            if char == quote {
                (self.triple, self.run) = (true, 0);
                return true;
            }
            if self.run == 2 {
                self.quote = None;
                return true;
            }
            self.run = 0;
        }
        if self.escaped {
            self.escaped = false;
            return true;
        }
        if char == '\\' {
            (self.escaped, self.run) = (true, 0);
            return true;
        }
        if char == quote {
            self.run += 1;
            if !self.triple || self.run == 3 {
                (self.quote, self.run) = (None, 0);
            }
            return true;
        }
        self.run = 0;
        self.triple || char != '\n'
    }

    fn keep(&mut self, char: char) {
        if self.overflow {
            return;
        }
        self.bytes += char.len_utf8();
        if self.bytes > self.limit {
            self.overflow = true;
            self.text = String::new();
            return;
        }
        self.text.push(char);
    }
}

// What a call says.

/// The name and arguments (a JSON object's compact text) of the call `text` (`NAME(KEY=VALUE, ...)`).
///
/// `max_depth` bounds its nesting as [`Extent`] does (the call's parentheses counting as 1), so that the reading (a
/// recursive descent) is bounded whoever delimited the text.
pub(crate) fn read_call(text: &str, max_depth: u32) -> Result<(String, String), Refusal> {
    Reader {
        text,
        pos: 0,
        room: max_depth.saturating_sub(1),
    }
    .call()
}

/// A recursive descent over one call's text, its recursion bounded by `room`.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// How many more brackets may open.
    room: u32,
}

impl<'a> Reader<'a> {
    fn call(&mut self) -> Result<(String, String), Refusal> {
        let Some(name) = self.name() else {
            return malformed("the text is not NAME(...)");
        };
        if !self.take('(') {
            return malformed("the text is not NAME(...)");
        }
        let mut keys = FxHashSet::default();
        let mut members = Vec::new();
        self.whitespace();
        while !self.take(')') {
            let key = self.name();
            self.whitespace();
            let Some(key) = key else {
                return malformed(NO_KEYWORD);
            };
            if !self.take('=') || self.peek() == Some('=') {
                return malformed(NO_KEYWORD);
            }
            if !keys.insert(key) {
                return malformed(format!("the keyword {} is given twice", quoted(key)));
            }
            members.push(format!("{}:{}", quoted(key), self.value()?));
            self.whitespace();
            if self.take(',') {
                self.whitespace();
            } else if self.peek() != Some(')') {
                return no_json_form(format!("the value of {} is not a Python literal", quoted(key)));
            }
        }
        if self.pos != self.text.len() {
            return malformed("text after the call's ')'");
        }
        Ok((name.to_owned(), format!("{{{}}}", members.join(","))))
    }

    // Chars.

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The char after the one at the cursor.
    fn peek_second(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn take(&mut self, char: char) -> bool {
        let taken = self.peek() == Some(char);
        if taken {
            self.pos += char.len_utf8();
        }
        taken
    }

    fn take_str(&mut self, literal: &str) -> bool {
        let taken = self.rest().starts_with(literal);
        if taken {
            self.pos += literal.len();
        }
        taken
    }

    fn whitespace(&mut self) {
        self.pos += self
            .rest()
            .bytes()
            .take_while(|&byte| is_space(char::from(byte)))
            .count();
    }

    fn name(&mut self) -> Option<&'a str> {
        let start = self.pos;
        let length = self
            .rest()
            .char_indices()
            .find(|&(at, char)| !is_name_char(char, at == 0))
            .map_or(self.rest().len(), |(at, _)| at);
        self.pos += length;
        self.text.get(start..self.pos).filter(|name| !name.is_empty())
    }

    fn at_quote(&self) -> bool {
        self.peek().is_some_and(is_quote)
    }

    fn at_digit(&self) -> bool {
        self.peek().is_some_and(|char| char.is_ascii_digit())
    }

    /// A number starts at the cursor: a digit, or a `.` before one.
    fn at_number(&self) -> bool {
        self.at_digit() || (self.peek() == Some('.') && self.peek_second().is_some_and(|char| char.is_ascii_digit()))
    }

    // Values, each read as its JSON text.

    fn value(&mut self) -> Result<String, Refusal> {
        self.whitespace();
        let char = self.peek();
        if let Some(open @ ('(' | '[' | '{')) = char {
            if self.room == 0 {
                return no_json_form("a value nested past Limits.max_depth");
            }
            self.room -= 1;
            let value = match open {
                '[' => {
                    self.pos += 1;
                    self.items(']')
                }
                '(' => self.parenthesized(),
                _ => self.braced(),
            }?;
            self.room += 1;
            return Ok(value);
        }
        if let Some('+' | '-') = char {
            return self.signed();
        }
        if self.at_number() {
            return self.number();
        }
        let start = self.pos;
        let word = self.name();
        if let Some(word) = word
            && is_string_prefix(word)
            && self.at_quote()
        {
            self.pos = start;
            return self.strings();
        }
        if char.is_some_and(is_quote) {
            return self.strings();
        }
        let constant = match word {
            Some("True") => Some("true"),
            Some("False") => Some("false"),
            Some("None") => Some("null"),
            _ => None,
        };
        if let Some(constant) = constant {
            return Ok(constant.to_owned());
        }
        let what = match (word, char) {
            (Some(word), _) => format!("the name {}", quoted(word)),
            (None, Some(char)) => quoted(char.encode_utf8(&mut [0; 4])),
            (None, None) => "the end of the text".to_owned(),
        };
        no_json_form(format!("{what} is not a Python literal"))
    }

    /// Values separated by `,` (one after the last allowed) up to `close`, taken: a JSON array.
    fn items(&mut self, close: char) -> Result<String, Refusal> {
        let mut items = Vec::new();
        self.whitespace();
        while !self.take(close) {
            items.push(self.value()?);
            self.whitespace();
            if !self.take(',') {
                self.whitespace();
                if !self.take(close) {
                    return no_json_form("a list, tuple or dict that is not literals separated by ','");
                }
                break;
            }
            self.whitespace();
        }
        Ok(format!("[{}]", items.join(",")))
    }

    fn parenthesized(&mut self) -> Result<String, Refusal> {
        self.pos += 1;
        self.whitespace();
        if self.take(')') {
            return Ok("[]".to_owned());
        }
        let first = self.value()?;
        self.whitespace();
        if self.take(')') {
            return Ok(first); // parentheses around one value, not a tuple
        }
        if !self.take(',') {
            return no_json_form("a parenthesized expression that is not a literal");
        }
        let rest = self.items(')')?;
        Ok(match rest.strip_prefix('[') {
            Some("]") | None => format!("[{first}]"),
            Some(items) => format!("[{first},{items}"),
        })
    }

    fn braced(&mut self) -> Result<String, Refusal> {
        self.pos += 1;
        self.whitespace();
        if self.take('}') {
            return Ok("{}".to_owned());
        }
        let mut keys = FxHashSet::default();
        let mut members = Vec::new();
        loop {
            // A key's JSON text: a string's starts with its quote, and two strings are equal when their texts are.
            let key = self.value()?;
            self.whitespace();
            if !self.take(':') {
                return no_json_form("a set has no JSON form");
            }
            if !key.starts_with('"') {
                return no_json_form(format!("the dict key {key} is not a string"));
            }
            if keys.contains(&key) {
                return no_json_form(format!(
                    "the dict key {key} is repeated (reading it would drop a value)"
                ));
            }
            let value = self.value()?;
            members.push(format!("{key}:{value}"));
            keys.insert(key);
            self.whitespace();
            if self.take(',') {
                self.whitespace();
                if self.take('}') {
                    break;
                }
            } else if self.take('}') {
                break;
            } else {
                return no_json_form("a dict that is not KEY: VALUE pairs separated by ','");
            }
        }
        Ok(format!("{{{}}}", members.join(",")))
    }

    fn signed(&mut self) -> Result<String, Refusal> {
        let negative = self.peek() == Some('-');
        self.pos += 1;
        self.whitespace();
        if !self.at_number() {
            return no_json_form("a sign before something that is not a number");
        }
        let number = self.number()?;
        // Zero has no sign as an int (-0 is 0); a float keeps it (-0.0 is a double of its own).
        Ok(if negative && number != "0" {
            format!("-{number}")
        } else {
            number
        })
    }

    fn number(&mut self) -> Result<String, Refusal> {
        let rest = self.rest().as_bytes();
        let float = float_literal(rest);
        let literal = float.unwrap_or_else(|| int_literal(rest));
        if literal == 0 || matches!(rest.get(literal), Some(b'j' | b'J')) {
            return no_json_form("a complex number (or a malformed number) has no JSON form");
        }
        let start = self.pos;
        self.pos += literal;
        if self.peek().is_some_and(|char| is_name_char(char, false)) {
            let through = self.pos + self.peek().map_or(0, char::len_utf8);
            let written = self.text.get(start..through).unwrap_or_default();
            return no_json_form(format!("{} is not a Python number", quoted(written)));
        }
        let written = self.text.get(start..self.pos).unwrap_or_default();
        let digits = written.replace('_', "");
        if float.is_some() {
            let json = json_float(&digits);
            if json.parse::<f64>().is_ok_and(f64::is_infinite) {
                return no_json_form(format!("{written} has no finite JSON value"));
            }
            return Ok(json);
        }
        json_int(&digits)
    }

    /// One string literal, or several written side by side (Python joins them): a JSON string.
    fn strings(&mut self) -> Result<String, Refusal> {
        let mut joined = self.string()?;
        loop {
            let start = self.pos;
            self.whitespace();
            let char = self.peek();
            let word_start = self.pos;
            let word = self.name();
            if char.is_some_and(is_quote) || (word.is_some_and(is_string_prefix) && self.at_quote()) {
                self.pos = word_start;
                joined.push_str(&self.string()?);
                continue;
            }
            self.pos = start;
            return Ok(quoted(&joined));
        }
    }

    fn string(&mut self) -> Result<String, Refusal> {
        let prefix = self.name().unwrap_or_default().to_ascii_lowercase();
        if prefix.contains('b') {
            return no_json_form("a bytes literal has no JSON form");
        }
        if prefix.contains('f') {
            return no_json_form("an f-string is an expression, not a literal");
        }
        let quote: &'static str = match self.rest().as_bytes() {
            [b'\'', b'\'', b'\'', ..] => "'''",
            [b'"', b'"', b'"', ..] => "\"\"\"",
            [b'\'', ..] => "'",
            _ => "\"",
        };
        self.pos += quote.len();
        let raw = prefix.contains('r');
        let mut out = String::new();
        while !self.take_str(quote) {
            let Some(char) = self.peek() else {
                // Extent rules this out; kept for the reader's sake.
                return no_json_form("a string that never closes");
            };
            self.pos += char.len_utf8();
            if char != '\\' {
                out.push(char);
            } else if raw {
                // The backslash stays, and shields the quote after it.
                out.push(char);
                let Some(next) = self.peek() else {
                    return no_json_form("a string that never closes");
                };
                out.push(next);
                self.pos += next.len_utf8();
            } else {
                self.escape(&mut out)?;
            }
        }
        Ok(out)
    }

    /// Writes what an escape after a backslash stands for, Python's unrecognized escapes keeping the backslash.
    fn escape(&mut self, out: &mut String) -> Result<(), Refusal> {
        let Some(char) = self.peek() else {
            return no_json_form("a string that never closes");
        };
        self.pos += char.len_utf8();
        let plain = match char {
            '\n' => return Ok(()),
            '\\' | '\'' | '"' => char,
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '0'..='7' => {
                let mut value = char.to_digit(8).unwrap_or_default();
                for _ in 0..2 {
                    let Some(digit) = self.peek().and_then(|next| next.to_digit(8)) else {
                        break;
                    };
                    value = value * 8 + digit;
                    self.pos += 1;
                }
                code_point(value)?
            }
            'x' | 'u' | 'U' => {
                let size = match char {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let digits = self
                    .rest()
                    .get(..size)
                    .filter(|digits| digits.bytes().all(|byte| byte.is_ascii_hexdigit()));
                let Some(digits) = digits else {
                    return no_json_form(format!("a truncated \\{char} escape"));
                };
                let value = u32::from_str_radix(digits, 16).unwrap_or(u32::MAX);
                self.pos += size;
                code_point(value)?
            }
            'N' => {
                return no_json_form(
                    "a \\N{...} escape: its character depends on the Unicode version the reader knows",
                );
            }
            _ => {
                out.push('\\');
                char
            }
        };
        out.push(plain);
        Ok(())
    }
}

fn is_string_prefix(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "r" | "u" | "b" | "f" | "rb" | "br" | "fr" | "rf"
    )
}

fn code_point(value: u32) -> Result<char, Refusal> {
    if value > 0x10_FFFF {
        return no_json_form(format!("the escape U+{value:X} is past Unicode"));
    }
    char::from_u32(value).map_or_else(
        || {
            no_json_form(format!(
                "the escape U+{value:X} is a surrogate, which has no UTF-8 form"
            ))
        },
        Ok,
    )
}

// Numbers: the reference's patterns, matched as Python's `re` matches them (alternatives in order, the first that
// matches wins; each repetition is greedy and never gives back, since what follows it cannot start with what it took).

/// The length of `\d(?:_?\d)*` at the start of `text` (0 when it does not match).
fn decimal(text: &[u8]) -> usize {
    digits_of(text, |byte| byte.is_ascii_digit(), true)
}

/// The length of `X(?:_?X)*` (`first_bare`) or `(?:_?X)+` at the start of `text` (0 when it does not match), `X`
/// being the digits `is_digit` accepts.
fn digits_of(text: &[u8], is_digit: impl Fn(u8) -> bool, first_bare: bool) -> usize {
    let mut at = 0;
    if first_bare {
        if !text.first().is_some_and(|&byte| is_digit(byte)) {
            return 0;
        }
        at = 1;
    }
    loop {
        match text.get(at..) {
            Some([byte, ..]) if is_digit(*byte) => at += 1,
            Some([b'_', byte, ..]) if is_digit(*byte) => at += 2,
            _ => return at,
        }
    }
}

/// The length of `[eE][+-]?DECIMAL` at the start of `text` (0 when it does not match).
fn exponent(text: &[u8]) -> usize {
    if !matches!(text.first(), Some(b'e' | b'E')) {
        return 0;
    }
    let sign = usize::from(matches!(text.get(1), Some(b'+' | b'-')));
    let digits = decimal(text.get(1 + sign..).unwrap_or_default());
    if digits == 0 { 0 } else { 1 + sign + digits }
}

/// The length of a float literal at the start of `text`:
/// `(?:DECIMAL\.(?:DECIMAL)?|\.DECIMAL)(?:EXPONENT)?|DECIMAL EXPONENT`.
fn float_literal(text: &[u8]) -> Option<usize> {
    let whole = decimal(text);
    let pointed = if whole > 0 && text.get(whole) == Some(&b'.') {
        Some(whole + 1 + decimal(text.get(whole + 1..).unwrap_or_default()))
    } else if whole == 0 && text.first() == Some(&b'.') {
        Some(decimal(text.get(1..).unwrap_or_default()))
            .filter(|&digits| digits > 0)
            .map(|digits| 1 + digits)
    } else {
        None
    };
    if let Some(length) = pointed {
        return Some(length + exponent(text.get(length..).unwrap_or_default()));
    }
    let power = exponent(text.get(whole..).unwrap_or_default());
    (whole > 0 && power > 0).then_some(whole + power)
}

/// The length of an int literal at the start of `text` (0 when there is none): `0[xX](?:_?HEX)+`, `0[oO](?:_?[0-7])+`,
/// `0[bB](?:_?[01])+`, `[1-9](?:_?\d)*` or `0(?:_?0)*`.
fn int_literal(text: &[u8]) -> usize {
    let based = |is_digit: fn(u8) -> bool| digits_of(text.get(2..).unwrap_or_default(), is_digit, false);
    let prefixed = match text.get(..2) {
        Some([b'0', b'x' | b'X']) => based(|byte| byte.is_ascii_hexdigit()),
        Some([b'0', b'o' | b'O']) => based(|byte| matches!(byte, b'0'..=b'7')),
        Some([b'0', b'b' | b'B']) => based(|byte| matches!(byte, b'0' | b'1')),
        _ => 0,
    };
    if prefixed > 0 {
        return 2 + prefixed;
    }
    match text.first() {
        Some(b'1'..=b'9') => decimal(text),
        Some(b'0') => digits_of(text, |byte| byte == b'0', true),
        _ => 0,
    }
}

/// The decimal JSON text of an int literal without its underscores (`0x`, `0o`, `0b` or decimal).
fn json_int(digits: &str) -> Result<String, Refusal> {
    let base = match digits.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    let text = if base == 10 {
        Some(digits.trim_start_matches('0').to_owned())
    } else {
        decimal_of(digits.get(2..).unwrap_or_default(), base)
    };
    match text {
        Some(text) if text.len() <= MAX_INT_DIGITS => Ok(if text.is_empty() { "0".to_owned() } else { text }),
        _ => no_json_form(format!(
            "an int of more than {MAX_INT_DIGITS} decimal digits has no JSON form here"
        )),
    }
}

/// The digits of `base` (2, 8 or 16) as decimal digits without leading zeros (empty for zero); None past
/// [`MAX_INT_BITS`], bounded before the conversion, which is quadratic in the digits.
fn decimal_of(digits: &str, base: u32) -> Option<String> {
    let significant = digits.trim_start_matches('0');
    let bits_per_digit = base.trailing_zeros() as usize;
    let first_bits = significant
        .chars()
        .next()
        .and_then(|char| char.to_digit(base))
        .map_or(0, |digit| 32 - digit.leading_zeros() as usize);
    let bits = significant.len().saturating_sub(1) * bits_per_digit + first_bits;
    if bits > MAX_INT_BITS {
        return None;
    }
    // Little-endian limbs of 10**18: each digit multiplies the number by the base and adds itself.
    let mut limbs: Vec<u64> = Vec::new();
    for digit in significant.chars().filter_map(|char| char.to_digit(base)) {
        let mut carry = u64::from(digit);
        for limb in &mut limbs {
            let wide = u128::from(*limb) * u128::from(base) + u128::from(carry);
            *limb = u64::try_from(wide % u128::from(LIMB)).unwrap_or_default();
            carry = u64::try_from(wide / u128::from(LIMB)).unwrap_or_default();
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut text = limbs.last().map(u64::to_string).unwrap_or_default();
    text.extend(limbs.iter().rev().skip(1).map(|limb| format!("{limb:018}")));
    Some(text)
}

/// The JSON text of a float literal without its underscores: as written when JSON can write it so.
fn json_float(digits: &str) -> String {
    let (mantissa, power) = match digits.find(['e', 'E']) {
        Some(at) => digits.split_at(at),
        None => (digits, ""),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let whole = whole.trim_start_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    let point = match fraction {
        None => String::new(),
        Some("") => ".0".to_owned(),
        Some(fraction) => format!(".{fraction}"),
    };
    format!("{whole}{point}{power}")
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    const CASES: &str = include_str!("../../../../tests/dialects/data/literal_cases.json");
    const DEPTH: u32 = 128;

    fn text(case: &Value, key: &str) -> Option<String> {
        case.get(key).and_then(Value::as_str).map(str::to_owned)
    }

    #[test]
    fn calls_are_the_json_text_or_the_refusal_of_the_shared_table() {
        let table: Value = serde_json::from_str(CASES).unwrap_or_default();
        let cases = table
            .get("read_call")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        assert!(cases.len() > 50);
        for case in cases {
            let call = text(&case, "call").unwrap_or_default();
            let expected = if let Some(message) = text(&case, "malformed") {
                Err(Refusal::Malformed(message))
            } else if let Some(message) = text(&case, "no_json_form") {
                Err(Refusal::NoJsonForm(message))
            } else {
                Ok((
                    text(&case, "name").unwrap_or_default(),
                    text(&case, "arguments").unwrap_or_default(),
                ))
            };
            assert_eq!(read_call(&call, DEPTH), expected, "{case}");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("f(a={}{})", "[".repeat(100_000), "]".repeat(100_000));
        let nested = Refusal::NoJsonForm("a value nested past Limits.max_depth".to_owned());
        assert_eq!(read_call(&deep, DEPTH), Err(nested));
        let fits = format!("f(a={}1{})", "(".repeat(127), ")".repeat(127));
        assert_eq!(read_call(&fits, DEPTH), Ok(("f".to_owned(), r#"{"a":1}"#.to_owned())));
    }

    #[test]
    fn huge_ints_are_refused_before_they_are_converted() {
        let digits = "9".repeat(MAX_INT_DIGITS);
        assert_eq!(
            read_call(&format!("f(a={digits})"), DEPTH),
            Ok(("f".to_owned(), format!(r#"{{"a":{digits}}}"#)))
        );
        let too_many = Refusal::NoJsonForm("an int of more than 4300 decimal digits has no JSON form here".to_owned());
        assert_eq!(read_call(&format!("f(a={digits}9)"), DEPTH), Err(too_many.clone()));
        assert_eq!(
            read_call(&format!("f(a=0x{})", "f".repeat(1_000_000)), DEPTH),
            Err(too_many.clone())
        );
        // 2**14285 - 1 has 4301 digits; leading zeros count for nothing.
        assert_eq!(
            read_call(&format!("f(a=0b{})", "1".repeat(MAX_INT_BITS)), DEPTH),
            Err(too_many)
        );
        let small = read_call(&format!("f(a=0b{}1_0)", "0".repeat(100_000)), DEPTH);
        assert_eq!(small, Ok(("f".to_owned(), r#"{"a":2}"#.to_owned())));
        assert_eq!(decimal_of("1", 2), Some("1".to_owned()));
        assert_eq!(
            decimal_of("de0b6b3a7640000", 16),
            Some("1000000000000000000".to_owned())
        );
        assert_eq!(decimal_of("0", 8), Some(String::new()));
    }

    #[test]
    fn numbers_are_matched_as_the_reference_s_patterns_match_them() {
        assert_eq!(float_literal(b"1_0.5e-1_0x"), Some(10));
        assert_eq!(float_literal(b"5.e"), Some(2));
        assert_eq!(float_literal(b".e5"), None);
        assert_eq!(float_literal(b"1e"), None);
        assert_eq!(float_literal(b"1_e5"), None);
        assert_eq!(int_literal(b"0x_f_f"), 6);
        assert_eq!(int_literal(b"0x"), 1);
        assert_eq!(int_literal(b"0_0_7"), 3);
        assert_eq!(int_literal(b"12__3"), 2);
        assert_eq!(json_float("007.5"), "7.5");
        assert_eq!(json_float("1.e5"), "1.0e5");
        assert_eq!(json_float(".5E-3"), "0.5E-3");
    }

    fn extent(text: &str, limits: &Limits) -> ((Read, usize), Extent) {
        let mut extent = Extent::new(limits, 2);
        let read = extent.take(text);
        (read, extent)
    }

    #[test]
    fn an_extent_closes_at_its_parenthesis_whatever_strings_hold() {
        let limits = Limits::default();
        for (text, read) in [
            ("a=')', b=\"]\")]", (Read::Complete, 13)),
            ("a='''x\n)''')", (Read::Complete, 12)),
            ("a='', b=[1])", (Read::Complete, 12)),
            ("a=\"\"\"\"\"\")", (Read::Complete, 9)),
            ("a='\\'')", (Read::Complete, 7)),
            ("a='é')", (Read::Complete, 7)),
            ("a=[1)", (Read::Invalid, 4)),
            ("a=1 # c)", (Read::Invalid, 4)),
            ("a='x\n')", (Read::Invalid, 4)),
            ("a=[{'k': (1", (Read::Incomplete, 11)),
        ] {
            assert_eq!(extent(text, &limits).0, read, "{text}");
        }
        let deep = Limits {
            max_depth: 2,
            ..Limits::default()
        };
        assert_eq!(extent("a=[[1]])", &deep).0, (Read::Invalid, 3));
        let small = Limits {
            max_argument_bytes: 8,
            ..Limits::default()
        };
        let (read, extent) = extent("a='xyzw')", &small);
        assert_eq!(read, (Read::Complete, 9));
        assert!(extent.overflow);
        assert_eq!(extent.text(), "");
    }
}
