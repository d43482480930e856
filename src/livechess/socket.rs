//! One LiveChess WebSocket: its feeds, the calls it answers and the frames
//! it pushes when a board changes.
//!
//! Design: no socket can hold up the boards. Working out a socket's
//! frames (a feed with a `setup` follows its board through legal moves)
//! never runs on the runtime's workers, which also run the boards and the
//! MQTT link: it runs on a blocking thread ([`tokio::task::spawn_blocking`]),
//! one at a time per socket, while the socket's task only waits. Board
//! changes that arrive meanwhile are coalesced: the next round works out
//! each changed board once, from its view as it is then, so a slow socket
//! skips the states in between instead of queueing them. And the work is
//! bounded: at most `max_setups` feeds of a socket carry a setup, and one
//! setup compares at most [`api::MAX_FOLLOW_TRIES`] boards per change.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use serde_json::Value;
use tokio::sync::broadcast;
use tracing::debug;

use super::api::{self, BoardView, Call, Sent};
use super::{BoardViews, now_ms};
use crate::listener::SocketLimits;

/// One subscription of one client.
pub(super) struct Feed {
    id: Value,
    board: usize,
    setup: Option<api::Setup>,
    sent: Option<Sent>,
}

/// The feeds of one socket and what it may have.
pub(super) struct Feeds {
    feeds: Vec<Feed>,
    max_feeds: usize,
    max_setups: usize,
}

/// What one round of work is about.
enum Work {
    /// A call from the client (text).
    Call(String),
    /// These boards changed (`None`: any may have; the socket fell behind).
    Changed(Option<BTreeSet<usize>>),
}

/// The next frame of `feed` on `view`, if anything changed.
fn frame(feed: &mut Feed, view: &BoardView) -> Option<String> {
    if let Some(setup) = &mut feed.setup {
        setup.update(view);
    }
    let (param, sent) = api::next_frame(view, feed.setup.as_ref(), feed.sent.as_ref())?;
    feed.sent = Some(sent);
    Some(api::feed_frame(&feed.id, param, now_ms()))
}

impl Feeds {
    /// No feeds yet, within `limits`.
    pub(super) fn new(limits: &SocketLimits) -> Feeds {
        Feeds {
            feeds: Vec::new(),
            max_feeds: limits.max_subscriptions,
            max_setups: limits.max_setups,
        }
    }

    /// The frames of the feeds on the `changed` boards (`None`: all).
    fn changed(&mut self, hub: &BoardViews, changed: Option<&BTreeSet<usize>>) -> Vec<String> {
        let views: Vec<(usize, BoardView)> = match changed {
            None => hub.views().into_iter().enumerate().collect(),
            Some(boards) => boards
                .iter()
                .filter_map(|&i| hub.view(i).map(|v| (i, v)))
                .collect(),
        };
        let mut out = Vec::new();
        for (i, view) in &views {
            for f in self.feeds.iter_mut().filter(|f| f.board == *i) {
                out.extend(frame(f, view));
            }
        }
        out
    }

    fn index(&self, feed: &Value) -> Option<usize> {
        self.feeds.iter().position(|f| f.id == *feed)
    }

    /// The messages that answer one request: the reply first, then (after
    /// a subscription or a setup) the feed's frame.
    pub(super) fn answer(&mut self, hub: &BoardViews, text: &str) -> Vec<String> {
        let (id, call) = api::parse_request(text);
        let t = now_ms();
        let call = match call {
            Ok(c) => c,
            Err(message) => return vec![api::error(&id, &message.to_string(), t)],
        };
        let views = hub.views();
        match call {
            Call::Eboards => {
                let boards: Vec<_> = views.iter().map(api::eboard).collect();
                vec![api::reply(&id, boards, t)]
            }
            Call::Sources => {
                let sources: Vec<_> = views.iter().map(api::source).collect();
                vec![api::reply(&id, sources, t)]
            }
            Call::Subscribe { feed, serialnr } => {
                let Some(board) = views.iter().position(|v| v.serialnr == serialnr) else {
                    return vec![api::error(&id, &format!("no e-board {serialnr}"), t)];
                };
                if let Some(i) = self.index(&feed) {
                    self.feeds.remove(i);
                }
                if self.feeds.len() >= self.max_feeds {
                    let m = format!("at most {} subscriptions per connection", self.max_feeds);
                    return vec![api::error(&id, &m, t)];
                }
                let mut f = Feed {
                    id: feed,
                    board,
                    setup: None,
                    sent: None,
                };
                let mut out = vec![api::reply(&id, Value::Null, t)];
                out.extend(frame(&mut f, &views[board]));
                self.feeds.push(f);
                out
            }
            Call::Unsubscribe { feed } => match self.index(&feed) {
                Some(i) => {
                    self.feeds.remove(i);
                    vec![api::reply(&id, Value::Null, t)]
                }
                None => vec![api::error(&id, &format!("no feed {feed}"), t)],
            },
            Call::Setup { feed, fen } => self.setup(&id, &feed, &fen, &views),
            Call::Flip { feed, flip } => match self.index(&feed) {
                Some(i) => {
                    // The frame follows through the change channel.
                    hub.flip(self.feeds[i].board, flip);
                    vec![api::reply(&id, Value::Null, t)]
                }
                None => vec![api::error(&id, &format!("no feed {feed}"), t)],
            },
        }
    }

    /// `setup` on `feed`, within the socket's budget of setups.
    fn setup(&mut self, id: &Value, feed: &Value, fen: &str, views: &[BoardView]) -> Vec<String> {
        let t = now_ms();
        let Some(i) = self.index(feed) else {
            return vec![api::error(id, &format!("no feed {feed}"), t)];
        };
        let others = self
            .feeds
            .iter()
            .enumerate()
            .filter(|(j, f)| *j != i && f.setup.is_some())
            .count();
        if others >= self.max_setups {
            let m = format!(
                "at most {} feeds with a setup per connection",
                self.max_setups
            );
            return vec![api::error(id, &m, t)];
        }
        self.feeds[i].setup = Some(api::Setup::new(fen));
        let mut out = vec![api::reply(id, Value::Null, t)];
        let board = self.feeds[i].board;
        if let Some(view) = views.get(board) {
            out.extend(frame(&mut self.feeds[i], view));
        }
        out
    }
}

/// The boards `first` and every change already queued behind it name
/// (`None`: any; the socket fell behind the channel), or `Err` when the
/// channel is closed.
fn coalesce(
    first: Result<usize, broadcast::error::RecvError>,
    changes: &mut broadcast::Receiver<usize>,
) -> Result<Option<BTreeSet<usize>>, ()> {
    use broadcast::error::{RecvError, TryRecvError};
    let mut boards = BTreeSet::new();
    match first {
        Ok(i) => {
            boards.insert(i);
        }
        Err(RecvError::Lagged(_)) => return Ok(None),
        Err(RecvError::Closed) => return Err(()),
    }
    loop {
        match changes.try_recv() {
            Ok(i) => {
                boards.insert(i);
            }
            Err(TryRecvError::Empty) => return Ok(Some(boards)),
            Err(TryRecvError::Lagged(_)) => return Ok(None),
            Err(TryRecvError::Closed) => return Err(()),
        }
    }
}

/// Does one round of `work` on a blocking thread; the feeds come back
/// with the messages to send (`None`: the thread failed).
async fn run(hub: &Arc<BoardViews>, mut feeds: Feeds, work: Work) -> Option<(Feeds, Vec<String>)> {
    let hub = Arc::clone(hub);
    tokio::task::spawn_blocking(move || {
        let out = match work {
            Work::Call(text) => feeds.answer(&hub, &text),
            Work::Changed(boards) => feeds.changed(&hub, boards.as_ref()),
        };
        (feeds, out)
    })
    .await
    .ok()
}

/// One WebSocket: answers calls, pushes its feeds' frames, pings the
/// client every third of `idle_timeout` and closes the socket when the
/// client has sent nothing (a message or a pong) for that long.
pub(super) async fn client(mut socket: WebSocket, hub: Arc<BoardViews>, limits: Arc<SocketLimits>) {
    let idle: Duration = limits.idle_timeout;
    let mut changes = hub.tx.subscribe();
    let mut feeds = Some(Feeds::new(&limits));
    let mut heard = tokio::time::Instant::now();
    let mut ping = tokio::time::interval(idle / 3);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let work = tokio::select! {
            m = socket.recv() => {
                heard = tokio::time::Instant::now();
                match m {
                    Some(Ok(Message::Text(text))) => Work::Call(text.as_str().to_string()),
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    Some(Ok(_)) => continue,
                }
            },
            _ = tokio::time::sleep_until(heard + idle) => {
                debug!("livechess: an idle WebSocket closed");
                let _ = socket.send(Message::Close(None)).await;
                return;
            }
            _ = ping.tick() => {
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
                continue;
            }
            c = changes.recv() => match coalesce(c, &mut changes) {
                Ok(boards) => Work::Changed(boards),
                Err(()) => return,
            },
        };
        let Some((back, out)) = run(&hub, feeds.take().expect("feeds are home"), work).await else {
            return;
        };
        feeds = Some(back);
        for text in out {
            if socket.send(Message::Text(text.into())).await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::TournamentInfo;

    fn hub() -> Arc<BoardViews> {
        BoardViews::new(
            vec![
                BoardView::new("1", "11111".into(), 1, 1),
                BoardView::new("2", "22222".into(), 2, 1),
            ],
            TournamentInfo::default(),
        )
    }

    fn feeds(max_feeds: usize, max_setups: usize) -> Feeds {
        Feeds {
            feeds: Vec::new(),
            max_feeds,
            max_setups,
        }
    }

    fn parse(texts: &[String]) -> Vec<Value> {
        texts
            .iter()
            .map(|t| serde_json::from_str(t).unwrap())
            .collect()
    }

    fn subscribe(n: u32, serial: &str) -> String {
        format!(
            r#"{{"id":{n},"call":"subscribe","param":{{"feed":"eboardevent","id":{n},"param":{{"serialnr":"{serial}"}}}}}}"#
        )
    }

    #[test]
    fn a_socket_subscribes_to_at_most_its_share_of_feeds() {
        let hub = hub();
        let mut f = feeds(2, 2);
        for (n, serial) in [(1, "11111"), (2, "22222"), (3, "11111")] {
            let out = parse(&f.answer(&hub, &subscribe(n, serial)));
            let expected = if n <= 2 { "call" } else { "error" };
            assert_eq!(out[0]["response"], expected, "{out:?}");
        }
        assert_eq!(f.feeds.len(), 2);
    }

    /// Seven queens a side on open ranks: some 90 moves a side and 8,000
    /// two-ply lines (the kings shut in).
    const QUEENS: &str = "6rk/6pp/qqqqqqq1/8/8/1QQQQQQQ/PP6/KR6 w - - 0 1";

    #[test]
    fn a_socket_sets_up_at_most_its_budget_of_feeds() {
        let hub = hub();
        let mut f = feeds(8, 2);
        for n in 1..=3 {
            f.answer(&hub, &subscribe(n, "11111"));
        }
        for n in 1..=3 {
            let call = format!(
                r#"{{"id":{},"call":"call","param":{{"id":{n},"method":"setup","param":{{"fen":"{QUEENS}"}}}}}}"#,
                10 + n
            );
            let out = parse(&f.answer(&hub, &call));
            let expected = if n <= 2 { "call" } else { "error" };
            assert_eq!(out[0]["response"], expected, "setup {n}: {out:?}");
        }
        // Setting up a feed that has one again is no new setup.
        let again = format!(
            r#"{{"id":20,"call":"call","param":{{"id":1,"method":"setup","param":{{"fen":"{QUEENS}"}}}}}}"#
        );
        assert_eq!(parse(&f.answer(&hub, &again))[0]["response"], "call");
    }

    #[test]
    fn a_change_of_a_heavy_setup_costs_little() {
        let hub = hub();
        let mut f = feeds(64, 64);
        for n in 1..=64 {
            f.answer(&hub, &subscribe(n, "11111"));
            let call = format!(
                r#"{{"id":{n},"call":"call","param":{{"id":{n},"method":"setup","param":{{"fen":"{QUEENS}"}}}}}}"#
            );
            f.answer(&hub, &call);
        }
        // Placements near the setup's that no one or two moves reach (a
        // queen of each side gone): every change is searched in full.
        let started = std::time::Instant::now();
        for n in 0..20 {
            let placement = if n % 2 == 0 {
                "6rk/6pp/1qqqqqq1/8/8/2QQQQQQ/PP6/KR6"
            } else {
                "6rk/6pp/qqqqqq2/8/8/1QQQQQQ1/PP6/KR6"
            };
            hub.state(
                "1",
                format!(r#"{{"status":"connected","placement":"{placement}","game":1}}"#)
                    .as_bytes(),
            );
            f.changed(&hub, Some(&BTreeSet::from([0])));
        }
        let spent = started.elapsed();
        assert!(
            spent < Duration::from_secs(2),
            "20 changes of 64 nine-queen setups took {spent:?}"
        );
    }

    #[test]
    fn changes_queued_behind_one_are_coalesced() {
        let (tx, mut rx) = broadcast::channel(4);
        for i in [1, 0, 1, 1] {
            tx.send(i).unwrap();
        }
        let first = rx
            .try_recv()
            .map_err(|_| broadcast::error::RecvError::Closed);
        assert_eq!(coalesce(first, &mut rx), Ok(Some(BTreeSet::from([0, 1]))));
        for i in 0..6 {
            tx.send(i).unwrap();
        }
        let lagged = Err(broadcast::error::RecvError::Lagged(2));
        assert_eq!(
            coalesce(lagged, &mut rx),
            Ok(None),
            "fell behind: every board"
        );
    }

    #[test]
    fn a_subscription_is_acknowledged_then_its_first_frame_follows() {
        let hub = hub();
        let mut f = feeds(2, 2);
        let out = parse(&f.answer(
            &hub,
            r#"{"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":"22222"}}}"#,
        ));
        assert_eq!(out.len(), 2);
        assert_eq!(
            (&out[0]["response"], &out[0]["id"]),
            (&"call".into(), &2.into())
        );
        assert_eq!(out[0]["param"], Value::Null);
        assert_eq!(
            (&out[1]["response"], &out[1]["id"]),
            (&"feed".into(), &1.into())
        );
        assert_eq!(out[1]["param"]["serialnr"], "22222");
        assert_eq!(f.feeds.len(), 1);
        // A state for board 2 changes what the feed sends next.
        hub.state(
            "2",
            br#"{"status":"connected","fen":"8/8/8/8/8/8/8/K6k w - - 0 1","game":1}"#,
        );
        let boards = BTreeSet::from([1]);
        let next = parse(&f.changed(&hub, Some(&boards)));
        assert_eq!(next[0]["param"]["board"], "8/8/8/8/8/8/8/K6k");
        assert!(f.changed(&hub, Some(&boards)).is_empty(), "nothing new");
        // A draughts board's state is not LiveChess's business.
        hub.state(
            "2",
            br#"{"status":"connected","game":1,"game_type":"draughts","placement":"..M..","position":"B:W21:B1"}"#,
        );
        assert!(f.changed(&hub, None).is_empty(), "nothing new");
    }

    #[test]
    fn unknown_boards_and_feeds_are_errors_and_unsubscribe_ends_a_feed() {
        let hub = hub();
        let mut f = feeds(2, 2);
        let out = parse(&f.answer(&hub, &subscribe(3, "99999")));
        assert_eq!(out[0]["response"], "error");
        assert_eq!(out[0]["param"]["message"], "no e-board 99999");
        let out = parse(&f.answer(&hub, r#"{"id":4,"call":"unsubscribe","param":{"id":1}}"#));
        assert_eq!(out[0]["response"], "error");
        f.answer(&hub, &subscribe(1, "11111"));
        let out = parse(&f.answer(&hub, r#"{"id":6,"call":"unsubscribe","param":{"id":1}}"#));
        assert_eq!(out[0]["response"], "call");
        assert!(f.feeds.is_empty());
    }
}
