//! Lists of violations kept up to `Limits.max_violations`: past it a violation is counted, not kept, and the list's
//! last entry, one `VIOLATIONS_OMITTED`, says how many were left out. A stream that repeats a finding millions of times
//! (duplicate keys, finish reasons, error events) costs memory and callbacks for the first ones only.

use crate::violation::{Violation, ViolationCode, ViolationData};

/// Whose list it is: its `VIOLATIONS_OMITTED` names the same call (a call's list) or none (the stream's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope {
    /// The call's choice.
    pub choice: Option<i64>,
    /// The call's seq.
    pub seq: Option<usize>,
    /// The call's index.
    pub index: Option<i64>,
}

/// What became of a violation offered to a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filed {
    /// Kept, at this index.
    Kept(usize),
    /// Counted: the first one left out adds the list's `VIOLATIONS_OMITTED` (at this index), the others count on it.
    Omitted(Option<usize>),
}

impl Filed {
    /// Where the violation was kept.
    pub fn kept(self) -> Option<usize> {
        match self {
            Self::Kept(index) => Some(index),
            Self::Omitted(_) => None,
        }
    }

    /// The entry this added, which the caller reports as found: the violation, or the `VIOLATIONS_OMITTED`.
    pub fn added(self) -> Option<usize> {
        match self {
            Self::Kept(index) => Some(index),
            Self::Omitted(marker) => marker,
        }
    }
}

/// Adds `violation` to `list` while it holds fewer than `max` kept ones; otherwise counts it.
pub fn keep(list: &mut Vec<Violation>, violation: Violation, max: usize, scope: Scope) -> Filed {
    if room(list, max) > 0 {
        list.push(violation);
        return Filed::Kept(list.len() - 1);
    }
    Filed::Omitted(omit(list, 1, max, scope))
}

/// Counts `count` violations left out of `list` (found past its limit); returns the index of its
/// `VIOLATIONS_OMITTED` when this adds it.
pub fn omit(list: &mut Vec<Violation>, count: u64, max: usize, scope: Scope) -> Option<usize> {
    if count == 0 {
        return None;
    }
    if let Some(Violation {
        code: ViolationCode::VIOLATIONS_OMITTED,
        data: Some(ViolationData::Omitted(omitted)),
        ..
    }) = list.last_mut()
    {
        *omitted += count;
        return None;
    }
    let message =
        format!("more than {max} violations (Limits.max_violations): the rest were counted, not kept (`data`)");
    let mut marker = Violation::new(ViolationCode::VIOLATIONS_OMITTED, message);
    marker.choice = scope.choice;
    marker.seq = scope.seq;
    marker.index = scope.index;
    marker.data = Some(ViolationData::Omitted(count));
    list.push(marker);
    Some(list.len() - 1)
}

/// How many more violations `list` keeps.
pub fn room(list: &[Violation], max: usize) -> usize {
    if list
        .last()
        .is_some_and(|last| last.code == ViolationCode::VIOLATIONS_OMITTED)
    {
        return 0;
    }
    max.saturating_sub(list.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(n: u64) -> Violation {
        let mut violation = Violation::new(ViolationCode::DUPLICATE_KEY, format!("#{n}"));
        violation.offset = Some(n);
        violation
    }

    #[test]
    fn past_the_limit_one_last_entry_counts_what_was_left_out() {
        let scope = Scope {
            choice: Some(0),
            seq: Some(3),
            index: Some(1),
        };
        let mut list = Vec::new();
        let filed: Vec<Filed> = (0..5).map(|n| keep(&mut list, finding(n), 2, scope)).collect();
        assert_eq!(
            filed,
            [
                Filed::Kept(0),
                Filed::Kept(1),
                Filed::Omitted(Some(2)),
                Filed::Omitted(None),
                Filed::Omitted(None)
            ]
        );
        assert_eq!(omit(&mut list, 10, 2, scope), None);
        assert_eq!(room(&list, 2), 0);
        let codes: Vec<&str> = list.iter().map(|v| v.code.as_str()).collect();
        assert_eq!(codes, ["DUPLICATE_KEY", "DUPLICATE_KEY", "VIOLATIONS_OMITTED"]);
        let marker = &list[2];
        assert_eq!(marker.data, Some(ViolationData::Omitted(13)));
        assert_eq!((marker.choice, marker.seq, marker.index), (Some(0), Some(3), Some(1)));
    }

    #[test]
    fn counting_nothing_adds_nothing() {
        let mut list = vec![finding(0)];
        assert_eq!(omit(&mut list, 0, 1, Scope::default()), None);
        assert_eq!(list.len(), 1);
        assert_eq!(omit(&mut list, 2, 1, Scope::default()), Some(1));
        assert_eq!(list[1].seq, None);
    }
}
