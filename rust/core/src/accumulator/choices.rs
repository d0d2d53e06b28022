//! A stream's choices by number: a short vector kept in order while they are few, a B-tree past that.
//!
//! A stream has one choice, or the few `n` asked for. A B-tree held room for eleven entries in its first node and a box
//! per choice besides; the vector holds a stream's one choice in one allocation, found by one comparison. A stream
//! that opens many choices (up to `Limits.max_choices`, which a caller may raise) moves them to a B-tree, so that
//! opening each stays logarithmic however the numbers come: inserting into the middle of a long vector would make a
//! stream of descending numbers quadratic.

use std::collections::BTreeMap;

/// Choices kept in the vector at most; the next one moves them all to the B-tree.
const FEW: usize = 8;

/// Each choice of a stream, in the order of its number.
#[derive(Debug)]
pub(super) struct Choices<C> {
    few: Vec<(i64, C)>,
    /// Empty until the stream opens more than `FEW` choices; then it holds them all and `few` none.
    many: BTreeMap<i64, C>,
}

impl<C> Default for Choices<C> {
    fn default() -> Self {
        Self {
            few: Vec::new(),
            many: BTreeMap::new(),
        }
    }
}

impl<C: Default> Choices<C> {
    fn position(&self, number: i64) -> Result<usize, usize> {
        self.few.binary_search_by_key(&number, |(kept, _)| *kept)
    }

    pub(super) fn get(&self, number: i64) -> Option<&C> {
        match self.position(number) {
            Ok(at) => self.few.get(at).map(|(_, choice)| choice),
            Err(_) => self.many.get(&number),
        }
    }

    pub(super) fn get_mut(&mut self, number: i64) -> Option<&mut C> {
        match self.position(number) {
            Ok(at) => self.few.get_mut(at).map(|(_, choice)| choice),
            Err(_) => self.many.get_mut(&number),
        }
    }

    /// The choice `number`, opened when it is new and fewer than `max` are; None when it cannot be.
    pub(super) fn admitted(&mut self, number: i64, max: usize) -> Option<&mut C> {
        let at = match self.position(number) {
            Ok(at) => return self.few.get_mut(at).map(|(_, choice)| choice),
            Err(at) => at,
        };
        if self.many.contains_key(&number) {
            return self.many.get_mut(&number);
        }
        if self.few.len() + self.many.len() >= max {
            return None;
        }
        if self.many.is_empty() && self.few.len() < FEW {
            if self.few.capacity() == 0 {
                self.few.reserve_exact(1); // most streams have one choice
            }
            self.few.insert(at, (number, C::default()));
            return self.few.get_mut(at).map(|(_, choice)| choice);
        }
        // Taken, not drained: the vector's room goes with it rather than staying with a stream of many choices.
        self.many.extend(std::mem::take(&mut self.few));
        Some(self.many.entry(number).or_default())
    }

    /// The choice `number`, opened when it is new whatever the limit (a call's choice was admitted when it opened).
    pub(super) fn opened(&mut self, number: i64) -> Option<&mut C> {
        self.admitted(number, usize::MAX)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.few.is_empty() && self.many.is_empty()
    }

    /// Each choice with its number, in the order of the numbers (one of the two stores is empty).
    pub(super) fn iter(&self) -> impl Iterator<Item = (i64, &C)> {
        let few = self.few.iter().map(|(number, choice)| (*number, choice));
        few.chain(self.many.iter().map(|(number, choice)| (*number, choice)))
    }

    pub(super) fn numbers(&self) -> impl Iterator<Item = i64> + '_ {
        self.iter().map(|(number, _)| number)
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &C> {
        self.iter().map(|(_, choice)| choice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each number opened in turn, each choice holding the numbers it was opened with.
    fn opened(numbers: impl IntoIterator<Item = i64>) -> Choices<Vec<i64>> {
        let mut choices = Choices::<Vec<i64>>::default();
        for number in numbers {
            if let Some(choice) = choices.opened(number) {
                choice.push(number);
            }
        }
        choices
    }

    #[test]
    fn choices_keep_the_order_of_their_numbers_whatever_the_order_they_open_in() {
        let choices = opened([5, -1, 2, 5, 0]);
        assert_eq!(choices.numbers().collect::<Vec<_>>(), [-1, 0, 2, 5]);
        assert_eq!(choices.get(5), Some(&vec![5, 5]));
        assert_eq!(choices.get(3), None);
        assert!(choices.many.is_empty(), "a few choices stay in the vector");
    }

    #[test]
    fn many_choices_move_to_the_tree_and_keep_their_order_and_values() {
        let descending = (0..40).rev().chain([7, 39, 0]);
        let mut choices = opened(descending);
        assert!(choices.few.is_empty() && choices.many.len() == 40);
        assert_eq!(choices.numbers().collect::<Vec<_>>(), (0..40).collect::<Vec<_>>());
        assert_eq!(choices.get(7), Some(&vec![7, 7]));
        assert_eq!(choices.values().map(Vec::len).sum::<usize>(), 43);
        assert!(choices.get_mut(40).is_none());
        // The move happens when the vector is full: the choices it held come along.
        let moved = opened(0..=i64::try_from(FEW).unwrap_or_default());
        assert_eq!(moved.many.len(), FEW + 1);
        assert_eq!(moved.get(0), Some(&vec![0]));
    }

    #[test]
    fn a_new_choice_past_the_limit_is_not_opened_but_a_known_one_is_found() {
        let mut choices = Choices::<u8>::default();
        assert!(choices.admitted(0, 2).is_some());
        assert!(choices.admitted(7, 2).is_some());
        assert!(choices.admitted(3, 2).is_none());
        assert!(choices.admitted(7, 2).is_some());
        assert_eq!(choices.numbers().collect::<Vec<_>>(), [0, 7]);
        assert!(choices.get_mut(3).is_none());
        assert!(!choices.is_empty());
    }
}
