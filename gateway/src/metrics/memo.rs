//! Per-thread memo of the labelled series a finished request counts into. Finding a series
//! by its label values hashes every value, takes the metric family's lock and, for the
//! bounded labels, another lock; a relay thread does that once per combination of labels and
//! then counts through the handles it kept.

use std::cell::RefCell;
use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

/// Distinct label combinations one thread keeps; past it the memo starts over (counting stays
/// right either way: a series found again is the same series).
const CAPACITY: usize = 1024;

/// The labels a finished request is counted by, borrowed from the request.
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
pub struct LabelsView<'a> {
    /// The [`super::Metrics`] the series belong to (tests run several in one process).
    pub instance: u64,
    pub endpoint: &'static str,
    pub class: &'static str,
    pub code: Option<&'static str>,
    pub stream: bool,
    /// Model, group and channel id, for a request with a caller that named a model.
    pub model: Option<(&'a str, &'a str, Option<i64>)>,
}

/// The same labels, owned by the memo.
struct Labels {
    instance: u64,
    endpoint: &'static str,
    class: &'static str,
    code: Option<&'static str>,
    stream: bool,
    model: Option<(Box<str>, Box<str>, Option<i64>)>,
}

impl Labels {
    fn view(&self) -> LabelsView<'_> {
        LabelsView {
            instance: self.instance,
            endpoint: self.endpoint,
            class: self.class,
            code: self.code,
            stream: self.stream,
            model: self
                .model
                .as_ref()
                .map(|(model, group, channel)| (&**model, &**group, *channel)),
        }
    }

    fn own(view: LabelsView<'_>) -> Labels {
        Labels {
            instance: view.instance,
            endpoint: view.endpoint,
            class: view.class,
            code: view.code,
            stream: view.stream,
            model: view
                .model
                .map(|(model, group, channel)| (model.into(), group.into(), channel)),
        }
    }
}

struct Entry<S> {
    labels: Labels,
    series: S,
}

struct Memo<S> {
    table: HashTable<Entry<S>>,
    hasher: DefaultHashBuilder,
}

impl<S> Memo<S> {
    fn new() -> Memo<S> {
        Memo {
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// The series of `view`, resolved by `resolve` the first time.
    fn series(&mut self, view: LabelsView<'_>, resolve: impl FnOnce() -> S) -> &S {
        let hash = self.hasher.hash_one(view);
        let matches = |e: &Entry<S>| e.labels.view() == view;
        if self.table.len() >= CAPACITY && self.table.find(hash, matches).is_none() {
            self.table.clear();
        }
        let hasher = &self.hasher;
        let entry = self
            .table
            .entry(hash, matches, |e| hasher.hash_one(e.labels.view()))
            .or_insert_with(|| Entry {
                labels: Labels::own(view),
                series: resolve(),
            });
        &entry.into_mut().series
    }
}

thread_local! {
    static MEMO: RefCell<Memo<super::RequestSeries>> = RefCell::new(Memo::new());
}

/// Runs `count` on the series of `view`, resolving them with `resolve` when this thread meets
/// the labels for the first time.
pub fn with_series(
    view: LabelsView<'_>,
    resolve: impl FnOnce() -> super::RequestSeries,
    count: impl FnOnce(&super::RequestSeries),
) {
    MEMO.with_borrow_mut(|memo| count(memo.series(view, resolve)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(model: Option<(&'a str, &'a str, Option<i64>)>) -> LabelsView<'a> {
        LabelsView {
            instance: 1,
            endpoint: "chat_completions",
            class: "2xx",
            code: None,
            stream: false,
            model,
        }
    }

    #[test]
    fn resolves_once_per_labels() {
        let mut memo: Memo<u32> = Memo::new();
        let mut resolved = 0;
        for _ in 0..3 {
            let model = String::from("gpt-4o");
            let s = *memo.series(view(Some((&model, "default", Some(7)))), || {
                resolved += 1;
                resolved
            });
            assert_eq!(s, 1);
        }
        let other = *memo.series(view(Some(("gpt-4o", "vip", Some(7)))), || 40);
        let none = *memo.series(view(None), || 50);
        assert_eq!((resolved, other, none), (1, 40, 50));
        assert_eq!(memo.table.len(), 3);
    }

    #[test]
    fn starts_over_past_the_capacity() {
        let mut memo: Memo<usize> = Memo::new();
        let names: Vec<String> = (0..=CAPACITY).map(|i| format!("m{i}")).collect();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(*memo.series(view(Some((name, "g", None))), || i), i);
        }
        assert_eq!(memo.table.len(), 1);
        // A combination met again after the reset is resolved again, to the same value.
        assert_eq!(*memo.series(view(Some((&names[0], "g", None))), || 0), 0);
    }
}
