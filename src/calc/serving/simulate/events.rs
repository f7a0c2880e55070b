//! The event queue: one binary heap ordered by time, then by the order
//! events were scheduled, so simultaneous events run first-in first-out
//! and a run repeats exactly.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Request `req` arrives.
    Arrival {
        /// Its index.
        req: u32,
    },
    /// Replica `engine` finishes its iteration.
    Done {
        /// Its index.
        engine: u32,
    },
}

/// An event at a time.
#[derive(Debug, Clone, Copy)]
pub struct Event {
    /// When, seconds.
    pub time: f64,
    /// The order it was scheduled in.
    pub seq: u64,
    /// What.
    pub kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    // Reversed, so the max-heap pops the earliest event first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.total_cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// Pending events.
#[derive(Debug, Default)]
pub struct Queue {
    heap: BinaryHeap<Event>,
    seq: u64,
}

impl Queue {
    /// Schedules `kind` at `time`.
    pub fn push(&mut self, time: f64, kind: Kind) {
        self.heap.push(Event {
            time,
            seq: self.seq,
            kind,
        });
        self.seq += 1;
    }

    /// The earliest event.
    pub fn pop(&mut self) -> Option<Event> {
        self.heap.pop()
    }

    /// When the earliest event happens.
    pub fn next_time(&self) -> Option<f64> {
        self.heap.peek().map(|e| e.time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_ties_in_order() {
        let mut q = Queue::default();
        q.push(2.0, Kind::Arrival { req: 0 });
        q.push(1.0, Kind::Arrival { req: 1 });
        q.push(1.0, Kind::Done { engine: 0 });
        q.push(1.0, Kind::Arrival { req: 2 });
        let order: Vec<Kind> = std::iter::from_fn(|| q.pop()).map(|e| e.kind).collect();
        assert_eq!(
            order,
            vec![
                Kind::Arrival { req: 1 },
                Kind::Done { engine: 0 },
                Kind::Arrival { req: 2 },
                Kind::Arrival { req: 0 }
            ]
        );
    }
}
