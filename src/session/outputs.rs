//! Where a session's publications go: each audience's sinks.
//!
//! The session knows its sinks only through [`BoardSink`], a small trait
//! the MQTT sink's board handle ([`crate::mqtt::BoardOutbox`]) and
//! the live page's feed ([`crate::web::BoardFeed`]) implement; so the
//! session (and the port code that drives it) imports no sink's insides,
//! and a new output is one more implementation.

use crate::event::Event;

/// One audience's view of one board (its MQTT topics, its live page).
/// Never blocks: a sink that cannot keep up drops, and says so.
pub trait BoardSink: std::fmt::Debug + Send + Sync {
    /// An event as published. Returns `false` when the sink had to drop
    /// an older event to take it (a full queue).
    fn event(&self, event: &Event) -> bool;

    /// The board's retained state (JSON, see
    /// [`StateMessage`](super::StateMessage)) and the current game's
    /// record, after a change. `redraw` is `false` when only the sensed
    /// placement changed (a piece in the air), which a page need not draw.
    fn state(&self, state: &str, record: &str, redraw: bool);

    /// Events this sink dropped so far (a full queue).
    fn dropped(&self) -> u64 {
        0
    }

    /// The sensors' reading changed at `t_ms`: the pieces as they stand
    /// (the board part of a FEN, game orientation), for the arbiters'
    /// replay of an alert's evidence.
    fn reading(&self, _t_ms: crate::event::Millis, _placement: &str) {}

    /// The board's part of the round's report (JSON, see
    /// [`crate::report::BoardReport`]), after a change: for the arbiters'
    /// view, which serves the report.
    fn report(&self, _json: &str) {}
}

/// The sinks of one board, by audience.
#[derive(Debug, Default)]
pub struct Outputs {
    /// What the public sees (the board's public topics, the public page),
    /// live or through the broadcast delay.
    pub public: Vec<Box<dyn BoardSink>>,
    /// What the arbiters see: always live, alerts included.
    pub arbiter: Vec<Box<dyn BoardSink>>,
    /// Whether the public sinks are handed alerts and the arbiters'
    /// decisions too (`[broadcast] public_alerts`); by default they are
    /// the arbiters' alone.
    pub public_alerts: bool,
}

impl Outputs {
    /// No sinks: a session whose record is all that is kept.
    pub fn none() -> Outputs {
        Outputs::default()
    }

    /// Adds a public sink.
    pub fn with_public(mut self, sink: impl BoardSink + 'static) -> Outputs {
        self.public.push(Box::new(sink));
        self
    }

    /// Hands the public sinks alerts and decisions too (`on`), or not.
    pub fn with_public_alerts(mut self, on: bool) -> Outputs {
        self.public_alerts = on;
        self
    }

    /// Adds an arbiters' sink.
    pub fn with_arbiter(mut self, sink: impl BoardSink + 'static) -> Outputs {
        self.arbiter.push(Box::new(sink));
        self
    }
}
