//! What the earlier sessions of a board published, for a resume.
//!
//! - **The PGN beside the capture.** A resumed game is checked against
//!   the PGN file the recorder keeps beside its capture. A resume that
//!   finds fewer games or moves than that record (readings lost in a gap
//!   of the recording, a capture cut short) raises an action alert, so the
//!   arbiter restores the game rather than the board going on from an
//!   earlier move unnoticed.
//! - **The record of what was published final** ([`PublishedRecord`]).
//!   A move still provisional when the daemon was killed is final in the
//!   resumed game (the replay of the captures ends as `boardcast replay`
//!   does: every timer fires), but no daemon published it as a `move`
//!   event. The resume announces the events that make the record (see
//!   [`makes_the_record`]) the earlier sessions had not published, and
//!   nothing they had.
//!
//! Design (the source of truth for "published"): a small file beside the
//! chain's first capture (`board-session.published`, like the decisions
//! journal, one per chain), holding how many of the chain's
//! record-making events were handed to the live sinks. A sink of the
//! arbiters' live view ([`Session::keep_published_in`]) rewrites it
//! (aside, then renamed) each time it is handed one, right after the
//! other live sinks got it: a `kill -9` leaves it true (the kernel has
//! the file; only a power cut between the event and the write can leave
//! it one event behind, and then that event is announced twice). The
//! replay of a chain makes the same events in the same order as the live
//! sessions did (it reads each capture as its line was read, and ends
//! each capture as a resume does), so the count is a place in the
//! replay's events: those after it are the ones to announce. Rejected:
//! the PGN beside the capture (written every half second, so a crash
//! just after a move leaves it a move behind and the move would be
//! announced twice), and the broker's retained state (not there without
//! a broker, and a publication in flight at the crash is in neither).
//! The count covers the live stream (the arbiters' topics and, without a
//! broadcast delay, the public's); the delayed public view takes up its
//! own journal ([`crate::delay`]), which already holds back what it never
//! released.
//!
//! A chain without the file (captures of an earlier version) announces
//! nothing again, as before.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tracing::{info, warn};

use super::{BoardSink, Session};
use crate::event::{Alert, AlertKind, Event, EventKind, Millis};

/// Whether an event is one of those a game's record is folded from (a
/// game's start, a final move, a retraction, a takeback, a game's end):
/// the events the record of what was published counts.
pub fn makes_the_record(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::GameStart { .. }
            | EventKind::Move { .. }
            | EventKind::Retract { .. }
            | EventKind::Takeback { .. }
            | EventKind::GameEnd { .. }
    )
}

/// The record-making events of `history` (a capture chain's replay, in
/// order) after the first `published` of them: what the earlier sessions
/// had not published. None when they published as many or more (moves
/// whose readings the crash kept out of the capture).
pub fn unpublished(history: &[(Millis, Event)], published: u64) -> Vec<&Event> {
    history
        .iter()
        .map(|(_, e)| e)
        .filter(|e| makes_the_record(&e.kind))
        .skip(usize::try_from(published).unwrap_or(usize::MAX))
        .collect()
}

/// The record of how many record-making events of a capture chain were
/// published live (see the module): one small file beside the chain's
/// first capture.
#[derive(Clone, Debug)]
pub struct PublishedRecord {
    path: PathBuf,
}

impl PublishedRecord {
    /// The record of the chain that begins with `first_capture`
    /// (`board-session.capture` -> `board-session.published`).
    pub fn of_chain(first_capture: &Path) -> PublishedRecord {
        PublishedRecord {
            path: first_capture.with_extension("published"),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many record-making events were published; `None` without a
    /// file, or with one that does not say (a warning).
    pub fn read(&self) -> Option<u64> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        let count = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v["published"].as_u64());
        if count.is_none() {
            warn!(record = %self.path.display(), "the record of what was published cannot be read: nothing is announced again");
        }
        count
    }

    /// Writes `count` (aside, then renamed over the file).
    pub fn write(&self, count: u64) -> std::io::Result<()> {
        let aside = self.path.with_extension("published.tmp");
        std::fs::write(&aside, format!("{{\"published\":{count}}}\n"))
            .and_then(|()| std::fs::rename(&aside, &self.path))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&aside);
            })
    }
}

/// The arbiters' sink that keeps the [`PublishedRecord`]: it counts the
/// record-making events it is handed and writes the count each time.
#[derive(Debug)]
struct RecordSink {
    record: PublishedRecord,
    count: AtomicU64,
    /// A write failed (warned once, until one succeeds).
    failing: AtomicBool,
}

impl RecordSink {
    fn write(&self, count: u64) {
        match self.record.write(count) {
            Ok(()) => {
                if self.failing.swap(false, Ordering::Relaxed) {
                    info!(record = %self.record.path().display(), "the record of what was published is written again");
                }
            }
            Err(e) => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    warn!(record = %self.record.path().display(), error = %e, "the record of what was published cannot be written: after a crash, moves published since may be announced again");
                }
            }
        }
    }
}

impl BoardSink for RecordSink {
    fn event(&self, event: &Event) -> bool {
        if makes_the_record(&event.kind) {
            let count = self.count.fetch_add(1, Ordering::Relaxed) + 1;
            self.write(count);
        }
        true
    }

    fn state(&self, _state: &str, _record: &str, _redraw: bool) {}
}

/// How many games a PGN text holds and how many plies its last one has
/// (`None` for a text without a game). Tags, comments, variations, move
/// numbers, NAGs and result tokens are not moves.
pub fn games_and_last_plies(pgn: &str) -> Option<(usize, usize)> {
    let mut games = 0;
    let mut plies = 0;
    let mut result = String::new();
    let mut depth = 0usize;
    for line in pgn.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[') {
            if tag.starts_with("Event ") {
                games += 1;
                plies = 0;
            }
            if let Some(v) = tag.strip_prefix("Result ") {
                result = v.trim_end_matches(']').trim().trim_matches('"').to_string();
            }
            continue;
        }
        if line.starts_with(';') || line.starts_with('%') {
            continue;
        }
        let mut text = String::with_capacity(line.len());
        for c in line.chars() {
            match c {
                '{' | '(' => depth += 1,
                '}' | ')' => depth = depth.saturating_sub(1),
                c if depth == 0 => text.push(c),
                _ => {}
            }
        }
        for token in text.split_whitespace() {
            let mv = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            let numbered = mv.len() < token.len() && token[..token.len() - mv.len()].contains('.');
            let mv = if numbered { mv } else { token };
            let not_a_move = mv.is_empty()
                || mv.starts_with('$')
                || mv == result
                || ["1-0", "0-1", "1/2-1/2", "*"].contains(&mv);
            if !not_a_move {
                plies += 1;
            }
        }
    }
    (games > 0).then_some((games, plies))
}

impl Session {
    /// Keeps the record of what this board publishes live beside
    /// `first_capture`, the first capture of its chain (this session's
    /// own capture when it resumed nothing): written now with every
    /// record-making event the game holds (after a resume, the earlier
    /// sessions' and those it announced), then at each one published.
    /// Called before the board's first reading.
    pub fn keep_published_in(&mut self, first_capture: &Path) {
        let sink = RecordSink {
            record: PublishedRecord::of_chain(first_capture),
            count: AtomicU64::new(self.record_events),
            failing: AtomicBool::new(false),
        };
        sink.write(self.record_events);
        self.outputs.arbiter.push(Box::new(sink));
    }

    /// After a resume whose replay (of the chain beginning with `first`)
    /// made `history`: the record-making events the earlier sessions had
    /// not published, by their [`PublishedRecord`], are published now to
    /// the live sinks (the arbiters', and the public's without a delay;
    /// the delayed view takes up its own journal). Returns how many.
    pub(super) fn announce_unpublished(
        &mut self,
        first: Option<&Path>,
        history: &[(Millis, Event)],
    ) -> usize {
        self.record_events = history
            .iter()
            .filter(|(_, e)| makes_the_record(&e.kind))
            .count() as u64;
        let Some(record) = first.map(PublishedRecord::of_chain) else {
            return 0;
        };
        let Some(published) = record.read() else {
            return 0;
        };
        let missing = unpublished(history, published);
        if missing.is_empty() {
            return 0;
        }
        for event in &missing {
            for sink in &self.outputs.arbiter {
                sink.event(event);
            }
            if self.public.is_none() {
                self.push_public(event);
            }
        }
        if !self.outputs.arbiter.is_empty() || !self.outputs.public.is_empty() {
            info!(
                record = %record.path().display(),
                published_before = published,
                announced = missing.len(),
                "events the earlier session had not published final (a move provisional at a crash) published now"
            );
        }
        missing.len()
    }

    /// After a resume from `capture`: the game taken up against the PGN
    /// the earlier session wrote beside it. Fewer games, or fewer moves
    /// in the last one, raise an [`AlertKind::Unrecognised`] action alert
    /// (published with the board's first events) and a warning.
    pub(super) fn check_resume_against_record(&mut self, capture: &Path) {
        let pgn = capture.with_extension("pgn");
        let Ok(text) = std::fs::read_to_string(&pgn) else {
            return;
        };
        let Some((games, plies)) = games_and_last_plies(&text) else {
            return;
        };
        let have = (
            self.log.games().len(),
            self.log.current().map_or(0, |g| g.sans.len()),
        );
        if have >= (games, plies) {
            return;
        }
        warn!(
            record = %pgn.display(),
            published_games = games,
            published_plies = plies,
            resumed_games = have.0,
            resumed_plies = have.1,
            "the resumed game is shorter than the record the earlier session published"
        );
        let message = if have.0 < games {
            format!(
                "Taken up after a restart, the board's record has {} game(s) but {games} were published: \
                 the recording lost readings (a gap). Restore the game from the published record ({}).",
                have.0,
                file_name(&pgn)
            )
        } else {
            format!(
                "Taken up after a restart, the game has {} of the {plies} moves (plies) published: \
                 the recording lost readings (a gap), and the moves after ply {} are not known. \
                 Restore the game from the published record ({}).",
                have.1,
                have.1,
                file_name(&pgn)
            )
        };
        let at = self.pipeline.now();
        self.pipeline.push_event(
            at,
            EventKind::Alert(Alert {
                kind: AlertKind::Unrecognised,
                side: None,
                law: None,
                message,
                cleared: false,
                evidence: None,
            }),
        );
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameId, Side};

    fn event(t_ms: Millis, kind: EventKind) -> (Millis, Event) {
        let e = Event {
            board: "1".into(),
            t_ms,
            game: GameId::Chess,
            kind,
        };
        (t_ms, e)
    }

    fn mv(ply: u32, id: &str) -> EventKind {
        EventKind::Move {
            ply,
            side: if ply % 2 == 1 {
                Side::White
            } else {
                Side::Black
            },
            notation: id.into(),
            id: id.into(),
            position: String::new(),
            irregular: false,
        }
    }

    /// A replayed history: a game's start, two final moves with a
    /// provisional one before each, a retraction and a move again, and
    /// the move the replay's end made final.
    fn history() -> Vec<(Millis, Event)> {
        let provisional = |ply: u32| EventKind::Provisional {
            ply,
            side: Side::White,
            notation: "x".into(),
            id: "x".into(),
            position: String::new(),
            withdrawn: false,
        };
        vec![
            event(
                0,
                EventKind::GameStart {
                    position: "start".into(),
                    chess960: Some(false),
                    rotated: false,
                },
            ),
            event(10, provisional(1)),
            event(20, mv(1, "e2e4")),
            event(30, provisional(2)),
            event(40, mv(2, "e7e5")),
            event(
                50,
                EventKind::Retract {
                    ply: 2,
                    id: "e7e5".into(),
                },
            ),
            event(60, mv(2, "c7c5")),
            event(70, provisional(3)),
            // Made final by the replay's end: no session published it.
            event(80, mv(3, "g1f3")),
        ]
    }

    #[test]
    fn only_the_record_making_events_after_those_published_are_unpublished() {
        let h = history();
        let ids = |n: u64| -> Vec<String> {
            unpublished(&h, n)
                .iter()
                .map(|e| match &e.kind {
                    EventKind::Move { id, .. } => format!("move {id}"),
                    EventKind::Retract { id, .. } => format!("retract {id}"),
                    EventKind::GameStart { .. } => "start".into(),
                    other => panic!("not a record-making event: {other:?}"),
                })
                .collect()
        };
        // The earlier session published the start and three events after
        // it (the retraction last): the move played again and the one the
        // replay's end made final are what it had not.
        assert_eq!(ids(4), ["move c7c5", "move g1f3"]);
        // It had published all but the move the replay's end made final.
        assert_eq!(ids(5), ["move g1f3"]);
        // Everything published (or more, moves whose readings the crash
        // kept out of the capture): nothing again.
        assert!(ids(6).is_empty());
        assert!(ids(9).is_empty());
        // Nothing published: everything, provisional moves left out.
        assert_eq!(ids(0).len(), 6);
    }

    #[test]
    fn the_record_sink_counts_what_it_is_handed_and_writes_it_each_time() {
        let dir = tempfile::tempdir().unwrap();
        let record = PublishedRecord::of_chain(&dir.path().join("1-20261207T140000Z.capture"));
        assert_eq!(
            record.path().file_name().unwrap(),
            "1-20261207T140000Z.published"
        );
        assert_eq!(record.read(), None, "no file: not known");
        let sink = RecordSink {
            record: record.clone(),
            count: AtomicU64::new(3),
            failing: AtomicBool::new(false),
        };
        for (_, e) in history() {
            assert!(sink.event(&e));
        }
        // Six record-making events (the provisional ones are not) after
        // the three it started from.
        assert_eq!(record.read(), Some(9));
        std::fs::write(record.path(), "{\"publ").unwrap();
        assert_eq!(record.read(), None, "a file that does not say");
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["1-20261207T140000Z.published"],
            "nothing left aside"
        );
    }

    #[test]
    fn games_and_plies_are_counted_without_numbers_comments_or_results() {
        let pgn = "[Event \"?\"]\n[Result \"1-0\"]\n\n1. e4 {[%clk 1:30:00]} e5 2. Nf3 (2. f4 exf4) Nc6 $1 3... a6 1-0\n\n\
                   [Event \"?\"]\n[Result \"*\"]\n\n1.d4 d5 2.c4 *\n";
        assert_eq!(games_and_last_plies(pgn), Some((2, 3)));
        let pdn =
            "[Event \"?\"]\n[GameType \"21\"]\n[Result \"2-0\"]\n\n1. 11-15 22-18 2. 15x22 2-0\n";
        assert_eq!(games_and_last_plies(pdn), Some((1, 3)));
        assert_eq!(games_and_last_plies(""), None);
    }
}
