//! Real games on simulated open-protocol boards (issue 28, item 2): a
//! deterministic slice of the bundled real corpora (American Checker
//! Federation draughts, `english-draughts-acf.pdn`; World Xiangqi
//! Federation master games, `xiangqi-wxf-hu.pgn` and `xiangqi-wxf-liu.pgn`;
//! see rules/tests/data/README.md) played under clean and human handling,
//! with and without piece identity, and replayed: every record must be the
//! game, with no standing error alert. Every failing case is reported
//! (game, profile, seed, the first wrong move and the first standing error
//! alert), not only the first. `cargo bench --bench games` plays them all.

use boardcast::event::{EventKind, GameId};
use boardcast::replay::Played;
use boardcast_rules::{draughts, xiangqi};
use boardcast_sim::open::{
    OtherGameProfile, read_xiangqi_games, simulate_draughts, simulate_xiangqi,
};

use crate::corpora::{data, replay};

/// Games taken from each corpus: every `STEP`-th, from the first.
const STEP: usize = 25;

fn profiles() -> Vec<OtherGameProfile> {
    let mut out = Vec::new();
    for human in [false, true] {
        for pieces in [true, false] {
            out.push(OtherGameProfile {
                human,
                pieces,
                rotated: false,
                real: false,
            });
        }
    }
    out
}

/// The bundled real draughts games (300).
fn real_draughts() -> Vec<draughts::PdnGame> {
    let text = std::fs::read_to_string(data("english-draughts-acf.pdn")).unwrap();
    draughts::read_pdn(&text).unwrap()
}

/// The bundled real xiangqi games (300): the `Source` tag and the moves,
/// as the simulator's reader reads them.
fn real_xiangqi() -> Vec<(String, Vec<xiangqi::Move>)> {
    let mut out = Vec::new();
    for file in ["xiangqi-wxf-hu.pgn", "xiangqi-wxf-liu.pgn"] {
        let text = std::fs::read_to_string(data(file)).unwrap();
        let moves = read_xiangqi_games(&text).unwrap();
        let records = xiangqi::pgn::read_all(&text).unwrap();
        assert_eq!(moves.len(), records.len(), "{file}");
        for (m, r) in moves.into_iter().zip(records) {
            assert_eq!(m, r.moves);
            let source = r
                .tags
                .iter()
                .find(|(k, _)| k == "Source")
                .map_or_else(String::new, |(_, v)| v.clone());
            out.push((source, m));
        }
    }
    out
}

/// What went wrong in a replay, or `None` when the record is the game and
/// no error alert stands: the first published move that is not the
/// game's (or the first retraction, or the record's length), and the first
/// error alert never withdrawn.
fn misreading(r: &Played, want: &[String]) -> Option<String> {
    let mut first_wrong = None;
    for e in &r.events {
        match &e.kind {
            EventKind::Move { ply, id, .. } => {
                let p = *ply as usize;
                if want.get(p.wrapping_sub(1)) != Some(id) {
                    first_wrong = Some(format!(
                        "at {} ms ply {p} published {id}, the game has {}",
                        e.t_ms,
                        want.get(p.wrapping_sub(1))
                            .map_or("no move", String::as_str)
                    ));
                    break;
                }
            }
            EventKind::Retract { ply, .. } => {
                first_wrong = Some(format!("at {} ms ply {ply} retracted", e.t_ms));
                break;
            }
            EventKind::Takeback { to_ply, .. } => {
                first_wrong = Some(format!("at {} ms taken back to ply {to_ply}", e.t_ms));
                break;
            }
            _ => {}
        }
    }
    let got = crate::corpora::ids(r);
    if first_wrong.is_none() && got != want {
        first_wrong = Some(format!(
            "{} moves published, the game has {}",
            got.len(),
            want.len()
        ));
    }
    let alerts: Vec<(u64, &boardcast::event::Alert)> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Alert(a) => Some((e.t_ms, a)),
            _ => None,
        })
        .collect();
    let standing = alerts.iter().enumerate().find(|(i, (_, a))| {
        a.kind.is_error()
            && !a.cleared
            && !alerts[i + 1..]
                .iter()
                .any(|(_, b)| b.kind == a.kind && b.cleared)
    });
    let standing = standing.map(|(_, (t, a))| format!("at {t} ms {:?}: {}", a.kind, a.message));
    if first_wrong.is_none() && standing.is_none() {
        return None;
    }
    Some(format!(
        "first wrong move: {}; first standing error alert: {}",
        first_wrong.as_deref().unwrap_or("none"),
        standing.as_deref().unwrap_or("none")
    ))
}

/// A slice of the real draughts and xiangqi games replays exactly under
/// clean and human handling, with and without piece identity, with no
/// standing error alert.
#[test]
fn real_games_replay_exactly_under_every_profile() {
    let mut failures = Vec::new();
    let mut cases = 0;
    let dr = real_draughts();
    assert_eq!(dr.len(), 300);
    for (i, g) in dr.iter().enumerate().step_by(STEP) {
        let want: Vec<String> = g.moves.iter().map(draughts::Move::id).collect();
        for profile in profiles() {
            let r = replay(
                &simulate_draughts(&g.moves, profile, i as u64),
                None,
                profile.human,
            );
            assert_eq!(r.game, GameId::Draughts);
            cases += 1;
            if let Some(why) = misreading(&r, &want) {
                failures.push(format!(
                    "draughts game {} ({}), {profile:?}, seed {i}: {why}",
                    i + 1,
                    g.tag("Source").unwrap_or("?")
                ));
            }
        }
    }
    let xq = real_xiangqi();
    assert_eq!(xq.len(), 300);
    for (i, (source, moves)) in xq.iter().enumerate().step_by(STEP) {
        let want: Vec<String> = moves.iter().map(ToString::to_string).collect();
        for profile in profiles() {
            let r = replay(
                &simulate_xiangqi(moves, profile, i as u64),
                None,
                profile.human,
            );
            assert_eq!(r.game, GameId::Xiangqi);
            cases += 1;
            if let Some(why) = misreading(&r, &want) {
                failures.push(format!(
                    "xiangqi game {} ({source}), {profile:?}, seed {i}: {why}",
                    i + 1
                ));
            }
        }
    }
    assert_eq!(cases, 2 * 12 * 4);
    assert!(
        failures.is_empty(),
        "{} of {cases} real-game replays misread:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
