//! A stream's choices by number: a vector kept in order, searched by halves.
//!
//! A stream has one choice, or the few `n` asked for (at most `Limits.max_choices`). A B-tree held room for eleven
//! entries in its first node and a box per choice besides; here a stream's one choice is one allocation, and finding it
//! is one comparison.

/// Each choice of a stream, in the order of its number.
#[derive(Debug)]
pub(super) struct Choices<C> {
    entries: Vec<(i64, C)>,
}

impl<C> Default for Choices<C> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

impl<C: Default> Choices<C> {
    fn position(&self, number: i64) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&number, |(kept, _)| *kept)
    }

    pub(super) fn get(&self, number: i64) -> Option<&C> {
        let at = self.position(number).ok()?;
        self.entries.get(at).map(|(_, choice)| choice)
    }

    pub(super) fn get_mut(&mut self, number: i64) -> Option<&mut C> {
        let at = self.position(number).ok()?;
        self.entries.get_mut(at).map(|(_, choice)| choice)
    }

    /// The choice `number`, opened when it is new and fewer than `max` are; None when it cannot be.
    pub(super) fn admitted(&mut self, number: i64, max: usize) -> Option<&mut C> {
        let at = match self.position(number) {
            Ok(at) => at,
            Err(_) if self.entries.len() >= max => return None,
            Err(at) => {
                if self.entries.capacity() == 0 {
                    self.entries.reserve_exact(1); // most streams have one choice
                }
                self.entries.insert(at, (number, C::default()));
                at
            }
        };
        self.entries.get_mut(at).map(|(_, choice)| choice)
    }

    /// The choice `number`, opened when it is new whatever the limit (a call's choice was admitted when it opened).
    pub(super) fn opened(&mut self, number: i64) -> Option<&mut C> {
        self.admitted(number, usize::MAX)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(super) fn numbers(&self) -> impl Iterator<Item = i64> + '_ {
        self.entries.iter().map(|(number, _)| *number)
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &C> {
        self.entries.iter().map(|(_, choice)| choice)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (i64, &C)> {
        self.entries.iter().map(|(number, choice)| (*number, choice))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_keep_the_order_of_their_numbers_whatever_the_order_they_open_in() {
        let mut choices = Choices::<Vec<u8>>::default();
        for number in [5, -1, 2, 5, 0] {
            if let Some(choice) = choices.opened(number) {
                choice.push(u8::try_from(number.rem_euclid(256)).unwrap_or_default());
            }
        }
        assert_eq!(choices.numbers().collect::<Vec<_>>(), [-1, 0, 2, 5]);
        assert_eq!(choices.get(5), Some(&vec![5, 5]));
        assert_eq!(choices.get(3), None);
        assert_eq!(choices.values().count(), 4);
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
    }
}
