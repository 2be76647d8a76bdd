//! Which cases of a conformance challenge an answer has answered so far: each case once,
//! by its label (the `case` column) or by its inputs (an answer whose CSV writer dropped
//! the column), and at the end the cases no row answered. Shared by the challenges of
//! every scheme ([`ChallengeCase`]).

use super::{RoundsError, CASE_COLUMN};
use crate::conformance::ChallengeCase;
use crate::fields::Excerpt;
use std::collections::HashMap;

/// The conformance challenge a file answers, and which of its cases the rows read so far
/// have answered.
pub(super) struct Answers<C: ChallengeCase> {
    /// The `case` column; `None` when rows are matched to cases by their inputs.
    pub(super) column: Option<usize>,
    cases: Vec<C>,
    by_label: HashMap<String, usize>,
    by_inputs: HashMap<C::Inputs, usize>,
    /// The line answering each case.
    answered: Vec<Option<u64>>,
    /// The groups the file must answer whether or not a row does ([`Answers::expect`]).
    expected: Vec<&'static str>,
}

impl<C: ChallengeCase> Answers<C> {
    /// The answers to `cases`, read by the `case` column `column` or, without one, by inputs.
    pub(super) fn new(column: Option<usize>, cases: Vec<C>) -> Self {
        let by_label = cases.iter().enumerate().map(|(i, case)| (case.label().to_owned(), i)).collect();
        let by_inputs = cases.iter().enumerate().map(|(i, case)| (case.inputs(), i)).collect();
        let answered = vec![None; cases.len()];
        Self { column, cases, by_label, by_inputs, answered, expected: Vec::new() }
    }

    /// Requires the file to answer each group of `names`: their cases are judged, and each
    /// one no row answers fails, even when no row answers the group at all. Without it, a
    /// group no row answers is not judged (an operator without the game leaves it out),
    /// and a CI job cannot tell that from an adapter that skipped it. An error names the
    /// groups when a name is none of them.
    pub(super) fn expect(&mut self, names: &[String]) -> Result<(), RoundsError> {
        let all = self.all_groups();
        for name in names {
            let Some(&group) = all.iter().find(|&&group| group == name) else {
                return Err(RoundsError::UnknownGroup {
                    name: Excerpt(name).to_string(),
                    groups: all.join(", "),
                });
            };
            if !self.expected.contains(&group) {
                self.expected.push(group);
            }
        }
        Ok(())
    }

    /// Every group of the challenge, in its order.
    fn all_groups(&self) -> Vec<&'static str> {
        let mut all: Vec<&'static str> = Vec::new();
        for case in &self.cases {
            if !all.contains(&case.group()) {
                all.push(case.group());
            }
        }
        all
    }

    /// The case whose round these inputs are, if any.
    pub(super) fn case_of(&self, inputs: &C::Inputs) -> Option<usize> {
        self.by_inputs.get(inputs).copied()
    }

    /// The case a row at `line` answers, by its label; each case once.
    pub(super) fn answer(&mut self, label: &str, line: u64) -> Result<&C, RoundsError> {
        let Some(&index) = self.by_label.get(label) else {
            return Err(RoundsError::BadField {
                line,
                column: CASE_COLUMN,
                problem: format!(
                    "'{}' is not a case of this fairaudit version's conformance challenge",
                    Excerpt(label)
                ),
            });
        };
        self.answer_index(index, line)
    }

    /// Case `index` answered by the row at `line`; each case once.
    pub(super) fn answer_index(&mut self, index: usize, line: u64) -> Result<&C, RoundsError> {
        if let Some(first) = self.answered[index] {
            let label = self.cases[index].label();
            let problem = match self.column {
                Some(_) => format!("'{}' is answered twice (first on line {first})", Excerpt(label)),
                None => format!("the round of case '{label}' is answered twice (first on line {first})"),
            };
            return Err(RoundsError::BadField { line, column: CASE_COLUMN, problem });
        }
        self.answered[index] = Some(line);
        Ok(&self.cases[index])
    }

    /// The groups (games) the file is judged on, in the challenge's order: those of the
    /// answered cases and those it is expected to answer, or every group when there are
    /// none (an empty answer answers nothing, and must not pass).
    pub(super) fn groups(&self) -> Vec<&'static str> {
        let all = self.all_groups();
        let mut answered: Vec<&'static str> = self.expected.clone();
        for (case, line) in self.cases.iter().zip(&self.answered) {
            if line.is_some() && !answered.contains(&case.group()) {
                answered.push(case.group());
            }
        }
        let order = |group: &&str| all.iter().position(|g| g == group);
        answered.sort_by_key(order);
        if answered.is_empty() {
            all
        } else {
            answered
        }
    }

    /// The groups of the challenge no row answers, when some group is answered (an
    /// answer is judged on the groups it answers; these are not judged at all).
    pub(super) fn unjudged(&self) -> Vec<&'static str> {
        let judged = self.groups();
        let mut unjudged: Vec<&'static str> = Vec::new();
        for case in &self.cases {
            if !judged.contains(&case.group()) && !unjudged.contains(&case.group()) {
                unjudged.push(case.group());
            }
        }
        unjudged
    }

    /// Cases of the answered groups with no row.
    pub(super) fn unanswered(&self) -> Vec<&C> {
        let groups = self.groups();
        self.cases
            .iter()
            .zip(&self.answered)
            .filter(|(case, line)| line.is_none() && groups.contains(&case.group()))
            .map(|(case, _)| case)
            .collect()
    }
}

/// What a file read as plain rounds holds of a challenge, when every row so far is the
/// round of a case, each once: an answer whose `case` column was dropped and whose first
/// row is a case with a hand-made seed pair (a rejection round, a seed of an edge length
/// or text) is read so, since one such pair is the operator's own vector. It is checked
/// as plain rounds, and [`PlainCases::only_cases`] lets the verdict say what it left out.
pub(super) struct PlainCases<C: ChallengeCase> {
    /// The cases matched by inputs; `None` once a row is no case's round, or a case's
    /// again.
    answers: Option<Answers<C>>,
    rows: u64,
}

/// A file read as plain rounds whose rows are all rounds of a challenge's cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnlyCases {
    /// The cases its rows are the rounds of.
    pub answered: usize,
    /// The cases of their games that no row is the round of.
    pub left_out: usize,
}

impl<C: ChallengeCase> PlainCases<C> {
    pub(super) fn new(cases: Vec<C>) -> Self {
        Self { answers: Some(Answers::new(None, cases)), rows: 0 }
    }

    /// A row with these inputs was read (made only while every row so far is a case's).
    pub(super) fn row(&mut self, inputs: impl FnOnce() -> Option<C::Inputs>) {
        let Some(answers) = self.answers.as_mut() else { return };
        self.rows += 1;
        let answered = inputs()
            .and_then(|inputs| answers.case_of(&inputs))
            .is_some_and(|index| answers.answer_index(index, self.rows).is_ok());
        if !answered {
            self.answers = None;
        }
    }

    /// When at least one row was read and every one is a case's round.
    pub(super) fn only_cases(&self) -> Option<OnlyCases> {
        let answers = self.answers.as_ref().filter(|_| self.rows > 0)?;
        Some(OnlyCases { answered: self.rows as usize, left_out: answers.unanswered().len() })
    }
}
