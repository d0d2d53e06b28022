//! `JSONTestSuite` (`nst/JSONTestSuite`, `test_parsing/`): every `y_` file must complete and every `n_` file
//! must be rejected, in agreement with `serde_json`, fed whole, split in two at every offset and split
//! into many random pieces; every `i_` file's outcome is pinned in [`implementation_defined`].
//!
//! The corpus lives outside the repository (`../shared/corpora/json-test-suite`); the test passes with
//! a note when it is absent, as in a user's fresh clone.

use std::error::Error;
use std::fs;
use std::path::PathBuf;

use toolwire_core::scanner::ScanErrorKind::{InvalidUtf8, LoneSurrogate, TooDeep, UnexpectedByte};
use toolwire_core::scanner::{ScanErrorKind, ScanState, Scanner};

const MAX_DEPTH: u32 = 128;

/// Files where `serde_json` and the suite disagree, each with the reason. `serde_json` agrees with the
/// suite on every `y_` and `n_` file of the pinned commit, so the list is empty; it stays as the one
/// place to record a disagreement if the corpus is updated.
const SERDE_DISAGREES: &[(&str, &str)] = &[];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Incomplete,
    Complete(u64),
    Invalid(u64, ScanErrorKind),
}

impl Outcome {
    fn accepted(self) -> bool {
        matches!(self, Self::Complete(_))
    }
}

fn outcome(state: ScanState) -> Outcome {
    match state {
        ScanState::Incomplete => Outcome::Incomplete,
        ScanState::Complete { end } => Outcome::Complete(end),
        ScanState::Invalid(err) => Outcome::Invalid(err.offset, err.kind),
    }
}

fn scan_pieces<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    let mut scanner = Scanner::new(MAX_DEPTH);
    for piece in pieces {
        scanner.feed(piece);
    }
    outcome(scanner.finish())
}

/// The outcome of each implementation-defined case, and why.
#[expect(
    clippy::match_same_arms,
    reason = "one arm per corpus file keeps each file beside its outcome"
)]
fn implementation_defined(name: &str) -> Option<Outcome> {
    use Outcome::{Complete, Invalid};
    Some(match name {
        // Numbers are checked for syntax only; magnitude and precision are the consumer's business
        // (Python ints are exact, floats overflow to inf or underflow to 0).
        "i_number_double_huge_neg_exp.json" => Complete(14),
        "i_number_huge_exp.json" => Complete(137),
        "i_number_neg_int_huge_exp.json" => Complete(10),
        "i_number_pos_double_huge_exp.json" => Complete(11),
        "i_number_real_neg_overflow.json" => Complete(16),
        "i_number_real_pos_overflow.json" => Complete(15),
        "i_number_real_underflow.json" => Complete(15),
        "i_number_too_big_neg_int.json" => Complete(33),
        "i_number_too_big_pos_int.json" => Complete(23),
        "i_number_very_big_negative_int.json" => Complete(51),
        // Lone surrogates in `\u` escapes cannot be carried as UTF-8: rejected by design.
        "i_object_key_lone_2nd_surrogate.json" => Invalid(7, LoneSurrogate),
        "i_string_1st_surrogate_but_2nd_missing.json" => Invalid(8, LoneSurrogate),
        "i_string_1st_valid_surrogate_2nd_invalid.json" => Invalid(13, LoneSurrogate),
        "i_string_incomplete_surrogate_and_escape_valid.json" => Invalid(9, LoneSurrogate),
        "i_string_incomplete_surrogate_pair.json" => Invalid(7, LoneSurrogate),
        "i_string_incomplete_surrogates_escape_valid.json" => Invalid(13, LoneSurrogate),
        "i_string_invalid_lonely_surrogate.json" => Invalid(8, LoneSurrogate),
        "i_string_invalid_surrogate.json" => Invalid(8, LoneSurrogate),
        "i_string_inverted_surrogates_U+1D11E.json" => Invalid(7, LoneSurrogate),
        "i_string_lone_second_surrogate.json" => Invalid(7, LoneSurrogate),
        // JSON text is UTF-8 (RFC 8259 section 8.1): invalid UTF-8 inside strings is rejected, including
        // encoded surrogates, overlong forms, code points past U+10FFFF and Latin-1 text.
        "i_string_UTF-8_invalid_sequence.json" => Invalid(7, InvalidUtf8),
        "i_string_UTF8_surrogate_U+D800.json" => Invalid(3, InvalidUtf8),
        "i_string_invalid_utf-8.json" => Invalid(2, InvalidUtf8),
        "i_string_iso_latin_1.json" => Invalid(3, InvalidUtf8),
        "i_string_lone_utf8_continuation_byte.json" => Invalid(2, InvalidUtf8),
        "i_string_not_in_unicode_range.json" => Invalid(3, InvalidUtf8),
        "i_string_overlong_sequence_2_bytes.json" => Invalid(2, InvalidUtf8),
        "i_string_overlong_sequence_6_bytes.json" => Invalid(2, InvalidUtf8),
        "i_string_overlong_sequence_6_bytes_null.json" => Invalid(2, InvalidUtf8),
        "i_string_truncated-utf-8.json" => Invalid(3, InvalidUtf8),
        // UTF-16 input is not UTF-8 JSON text; the first byte that is not JSON is rejected.
        "i_string_UTF-16LE_with_BOM.json" | "i_string_utf16BE_no_BOM.json" => Invalid(0, UnexpectedByte),
        "i_string_utf16LE_no_BOM.json" => Invalid(1, UnexpectedByte),
        // A UTF-8 byte order mark is not accepted: senders must not add one (RFC 8259 section 8.1).
        "i_structure_UTF-8_BOM_empty_object.json" => Invalid(0, UnexpectedByte),
        // 500 nested arrays exceed the depth limit of 128 (the 129th `[` is at offset 128).
        "i_structure_500_nested_arrays.json" => Invalid(128, TooDeep),
        _ => return None,
    })
}

/// A small deterministic generator, so random splits are reproducible without a dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(n.max(1)).unwrap_or(1)).unwrap_or(0)
    }
}

fn random_pieces<'a>(data: &'a [u8], rng: &mut XorShift) -> Vec<&'a [u8]> {
    let mut pieces = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        // Mostly tiny pieces (splitting escapes and UTF-8 sequences), now and then a large one.
        let limit = if rng.below(8) == 0 { rest.len() } else { 4 };
        let (piece, tail) = rest.split_at((1 + rng.below(limit)).min(rest.len()));
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// The corpus files as (name, bytes), sorted by name.
type Corpus = Vec<(String, Vec<u8>)>;

fn corpus() -> Result<Option<Corpus>, Box<dyn Error>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/json-test-suite");
    if !dir.is_dir() {
        eprintln!("note: {} is absent; JSONTestSuite checks skipped", dir.display());
        return Ok(None);
    }
    let mut files = Vec::new();
    for entry in fs::read_dir(&dir)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "json") {
            files.push((name, fs::read(&path)?));
        }
    }
    files.sort();
    Ok(Some(files))
}

#[test]
fn accepted_and_rejected_cases_agree_with_the_suite_and_serde_json() -> Result<(), Box<dyn Error>> {
    let Some(files) = corpus()? else { return Ok(()) };
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, data) in &files {
        let expected = if name.starts_with("y_") {
            true
        } else if name.starts_with("n_") {
            false
        } else {
            continue;
        };
        checked += 1;
        let ours = scan_pieces([data.as_slice()]);
        let serde = serde_json::from_slice::<serde_json::Value>(data).is_ok();
        let serde_excused = SERDE_DISAGREES.iter().any(|(n, _)| n == name);
        if ours.accepted() != expected || (serde != expected && !serde_excused) {
            failures.push(format!(
                "{name}: ours {ours:?}, serde_json accepts: {serde}, suite accepts: {expected}"
            ));
        }
    }
    assert!(checked > 250, "only {checked} y_/n_ files found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for (name, _) in SERDE_DISAGREES {
        assert!(files.iter().any(|(n, _)| n == name), "{name} is listed but absent");
    }
    Ok(())
}

#[test]
fn every_split_gives_the_whole_fed_outcome() -> Result<(), Box<dyn Error>> {
    let Some(files) = corpus()? else { return Ok(()) };
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for (name, data) in &files {
        let whole = scan_pieces([data.as_slice()]);
        for at in 0..=data.len() {
            let (head, tail) = data.split_at(at);
            assert_eq!(scan_pieces([head, tail]), whole, "{name} split at {at}");
        }
        for round in 0..8 {
            let pieces = random_pieces(data, &mut rng);
            assert_eq!(
                scan_pieces(pieces.iter().copied()),
                whole,
                "{name} random split {round}: {pieces:?}"
            );
        }
        assert_eq!(scan_pieces(data.chunks(1)), whole, "{name} byte by byte");
    }
    Ok(())
}

#[test]
fn implementation_defined_cases_have_their_documented_outcome() -> Result<(), Box<dyn Error>> {
    let Some(files) = corpus()? else { return Ok(()) };
    let mut checked = 0;
    for (name, data) in files.iter().filter(|(name, _)| name.starts_with("i_")) {
        let documented = implementation_defined(name);
        assert!(documented.is_some(), "{name} has no documented outcome");
        assert_eq!(Some(scan_pieces([data.as_slice()])), documented, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 35);
    Ok(())
}
