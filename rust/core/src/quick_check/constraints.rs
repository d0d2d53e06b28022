//! The keywords of the subset that constrain a value of one kind: `enum` and `const` (the values allowed), and the
//! bounds on a number (`minimum`, `maximum` and their exclusive forms), a string's length and an array's items.
//!
//! Each is decided exactly or not at all: numbers are compared as written (the validator keeps them so, with
//! arbitrary precision), so a bound must be an integer and a number is compared with it from its digits; an `enum`
//! number matches only a number written as an integer; anything else makes the check answer "not known".

use std::cmp::Ordering;

use serde_json::Value;

/// Largest bound or option kept as an integer: beyond it a JSON number written as an integer may not be one exactly.
const LARGEST_EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

/// The values one `enum` (or `const`) allows, by kind; an option that is an object or an array leaves the subset.
#[derive(Debug, Default)]
pub(super) struct Options {
    strings: Vec<String>,
    integers: Vec<i64>,
    null: bool,
    allows_true: bool,
    allows_false: bool,
}

impl Options {
    pub(super) fn of(values: &[Value]) -> Option<Self> {
        let mut options = Self::default();
        for value in values {
            match value {
                Value::String(text) => options.strings.push(text.clone()),
                Value::Null => options.null = true,
                Value::Bool(true) => options.allows_true = true,
                Value::Bool(false) => options.allows_false = true,
                // A fraction allowed is left out: a number is then refused here, and so left to the validator.
                Value::Number(_) => options.integers.extend(integer(value)),
                Value::Array(_) | Value::Object(_) => return None,
            }
        }
        Some(options)
    }

    pub(super) fn allow_null(&self) -> bool {
        self.null
    }

    pub(super) fn allow_bool(&self, flag: bool) -> bool {
        if flag { self.allows_true } else { self.allows_false }
    }

    pub(super) fn allow_str(&self, text: &str) -> bool {
        self.strings.iter().any(|option| option == text)
    }

    /// Whether `digits` (a JSON number as written) is certainly one of the numbers allowed.
    pub(super) fn allow_number(&self, digits: &[u8]) -> bool {
        written_integer(digits).is_some_and(|number| self.integers.contains(&number))
    }
}

/// A bound on a number: the value must be above (or at) it, or below (or at) it.
#[derive(Debug, Clone, Copy)]
enum Bound {
    AtLeast(i64),
    Above(i64),
    AtMost(i64),
    Below(i64),
}

/// Bounds on the size of a string (in characters) or an array (in items).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Size {
    least: Option<u64>,
    most: Option<u64>,
}

impl Size {
    pub(super) fn admits(self, size: u64) -> bool {
        self.least.is_none_or(|least| size >= least) && self.most.is_none_or(|most| size <= most)
    }

    /// Whether some size is admitted only in part: an array's items are counted only when it matters.
    pub(super) fn is_set(self) -> bool {
        self.least.is_some() || self.most.is_some()
    }
}

/// The bounds of one subschema.
#[derive(Debug, Default)]
pub(super) struct Limits {
    numbers: Vec<Bound>,
    pub(super) length: Size,
    pub(super) items: Size,
}

impl Limits {
    /// Reads `keyword` when it is a bound; `Some(false)` for any other keyword, None for a bound the subset does not
    /// decide (a fraction, a boolean `exclusiveMaximum` of draft 4, a size that is not a count).
    pub(super) fn read(&mut self, keyword: &str, value: &Value) -> Option<bool> {
        let count = || value.as_u64();
        match keyword {
            "minimum" => self.numbers.push(Bound::AtLeast(integer(value)?)),
            "exclusiveMinimum" => self.numbers.push(Bound::Above(integer(value)?)),
            "maximum" => self.numbers.push(Bound::AtMost(integer(value)?)),
            "exclusiveMaximum" => self.numbers.push(Bound::Below(integer(value)?)),
            "minLength" => self.length.least = Some(count()?),
            "maxLength" => self.length.most = Some(count()?),
            "minItems" => self.items.least = Some(count()?),
            "maxItems" => self.items.most = Some(count()?),
            _ => return Some(false),
        }
        Some(true)
    }

    /// Whether `digits` (a JSON number as written) is certainly within every bound.
    pub(super) fn admit_number(&self, digits: &[u8]) -> bool {
        self.numbers.iter().all(|bound| {
            let (limit, admitted): (i64, &[Ordering]) = match *bound {
                Bound::AtLeast(limit) => (limit, &[Ordering::Greater, Ordering::Equal]),
                Bound::Above(limit) => (limit, &[Ordering::Greater]),
                Bound::AtMost(limit) => (limit, &[Ordering::Less, Ordering::Equal]),
                Bound::Below(limit) => (limit, &[Ordering::Less]),
            };
            compare_with(digits, limit).is_some_and(|order| admitted.contains(&order))
        })
    }

    pub(super) fn admit_str(&self, text: &str) -> bool {
        !self.length.is_set() || self.length.admits(text.chars().count() as u64)
    }
}

/// `value` as an integer, when it is one exactly (`5` or `5.0`, not `5.5`, within 2^53 when written with a fraction).
fn integer(value: &Value) -> Option<i64> {
    let Value::Number(number) = value else {
        return None;
    };
    if let Some(integer) = number.as_i64() {
        return Some(integer);
    }
    let float = number.as_f64()?;
    // `as` is exact here: the value is integral and within ±2^53.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "integral and within 2^53, checked just before"
    )]
    (float.fract() == 0.0 && float.abs() <= LARGEST_EXACT).then_some(float as i64)
}

/// The integer `digits` spell, when written as one (no fraction, no exponent) and within 64 bits; not `-0`, which
/// equals `0` as a number but not as the text the validator keeps.
fn written_integer(digits: &[u8]) -> Option<i64> {
    if digits == b"-0" || digits.iter().any(|byte| matches!(byte, b'.' | b'e' | b'E')) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// How the number `digits` (as written, in JSON's grammar) compares with `limit`, exactly; None for an exponent or an
/// integer part past 18 digits.
fn compare_with(digits: &[u8], limit: i64) -> Option<Ordering> {
    let (negative, unsigned) = match digits.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, digits),
    };
    if unsigned.iter().any(|byte| matches!(byte, b'e' | b'E')) {
        return None;
    }
    let (whole, fraction) = match unsigned.iter().position(|&byte| byte == b'.') {
        Some(point) => (unsigned.get(..point)?, unsigned.get(point + 1..)?),
        None => (unsigned, &[][..]),
    };
    if whole.len() > 18 {
        return None;
    }
    let magnitude: i128 = std::str::from_utf8(whole).ok()?.parse().ok()?;
    let has_fraction = fraction.iter().any(|&digit| digit != b'0');
    let limit = i128::from(limit);
    // value = ±(magnitude + f) with 0 <= f < 1, f > 0 exactly when a fraction digit is not 0.
    Some(if negative {
        match (-magnitude).cmp(&limit) {
            Ordering::Equal if has_fraction => Ordering::Less,
            order => order,
        }
    } else {
        match magnitude.cmp(&limit) {
            Ordering::Equal if has_fraction => Ordering::Greater,
            order => order,
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_are_compared_as_written() {
        let cases: &[(&str, i64, Ordering)] = &[
            ("5", 5, Ordering::Equal),
            ("5.0", 5, Ordering::Equal),
            ("5.000001", 5, Ordering::Greater),
            ("4.999999999999999999999", 5, Ordering::Less),
            ("-5", -5, Ordering::Equal),
            ("-5.5", -5, Ordering::Less),
            ("-4.5", -5, Ordering::Greater),
            ("-0", 0, Ordering::Equal),
            ("-0.5", 0, Ordering::Less),
            ("0.5", 0, Ordering::Greater),
            ("123456789012345678", 123_456_789_012_345_679, Ordering::Less),
        ];
        for &(digits, limit, expected) in cases {
            assert_eq!(
                compare_with(digits.as_bytes(), limit),
                Some(expected),
                "{digits} vs {limit}"
            );
        }
        for undecided in ["1e3", "1E-2", "-1.5e1", "1234567890123456789"] {
            assert_eq!(compare_with(undecided.as_bytes(), 0), None, "{undecided}");
        }
    }

    #[test]
    fn bounds_are_integers_and_sizes_counts() {
        let mut limits = Limits::default();
        assert_eq!(limits.read("minimum", &json!(1)), Some(true));
        assert_eq!(limits.read("maximum", &json!(10.0)), Some(true));
        assert_eq!(limits.read("maximum", &json!(10.5)), None);
        assert_eq!(limits.read("exclusiveMaximum", &json!(true)), None);
        assert_eq!(limits.read("maxLength", &json!(-1)), None);
        assert_eq!(limits.read("maxLength", &json!(1.5)), None);
        assert_eq!(limits.read("pattern", &json!("x")), Some(false));
        assert!(limits.admit_number(b"1") && limits.admit_number(b"10") && limits.admit_number(b"9.99"));
        assert!(!limits.admit_number(b"0.999") && !limits.admit_number(b"10.01") && !limits.admit_number(b"1e0"));
        let mut length = Limits::default();
        length.read("minLength", &json!(2));
        length.read("maxLength", &json!(3));
        assert!(
            length.admit_str("éé") && length.admit_str("𝄞𝄞𝄞") && !length.admit_str("é") && !length.admit_str("abcd")
        );
    }

    #[test]
    fn options_match_by_kind_and_numbers_only_as_integers() {
        let options = Options::of(json!(["a", 1, 2.0, 2.5, null, false]).as_array().unwrap()).unwrap();
        assert!(options.allow_str("a") && !options.allow_str("b"));
        assert!(options.allow_number(b"1") && options.allow_number(b"2") && !options.allow_number(b"0"));
        // Equal to an option, but not decided here: the validator judges them.
        assert!(!options.allow_number(b"1.0") && !options.allow_number(b"2.5") && !options.allow_number(b"1e0"));
        let zero = Options::of(json!([0]).as_array().unwrap()).unwrap();
        assert!(zero.allow_number(b"0") && !zero.allow_number(b"-0"));
        assert!(options.allow_null() && options.allow_bool(false) && !options.allow_bool(true));
        assert!(Options::of(json!([[1], "a"]).as_array().unwrap()).is_none());
        assert!(Options::of(json!([{"a": 1}]).as_array().unwrap()).is_none());
    }
}
