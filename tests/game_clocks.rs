//! Issue 28, parity: clocks on draughts and xiangqi boards. The open
//! protocol's `clock` line (protocols/open.md §3.4) beside simulated
//! games: presses complete moves, the records carry `%clk`, clock events
//! name the game's sides, flags and presses without a move are judged by
//! each rule book (draughts art. 1.30; xiangqi Art. 16 and 21).

use crate::corpora::{draughts_games, errors, ids, xiangqi_games};
use boardcast::clock::{Face, TimeControl};
use boardcast::event::{AlertKind, Event, EventKind, GameId, Side};
use boardcast::replay::Played;
use boardcast_rules::xiangqi::pgn;
use boardcast_rules::{draughts, xiangqi};
use boardcast_sim::clock::{ClockSetup, ClockTruth, add_open_clock};
use boardcast_sim::open::{
    OtherGame, OtherGameProfile, OtherGameSession, simulate_draughts, simulate_xiangqi,
};

const HUMAN: OtherGameProfile = OtherGameProfile {
    human: true,
    pieces: true,
    rotated: false,
    real: false,
};

/// A game of `game` (the `i`-th of its corpus) with a clock set to `tc`,
/// the first player's face on `face`, replayed under that time control.
fn clocked(
    game: GameId,
    i: usize,
    tc: &str,
    face: Face,
    profile: OtherGameProfile,
) -> (OtherGameSession, ClockTruth, Vec<String>, Played) {
    let setup = ClockSetup {
        white_face: face,
        ..ClockSetup::new(TimeControl::parse(tc).unwrap())
    };
    let (mut session, open, want) = match game {
        GameId::Draughts => {
            let g = &draughts_games()[i];
            let want = g.moves.iter().map(draughts::Move::id).collect();
            (
                simulate_draughts(&g.moves, profile, i as u64),
                OtherGame::Draughts,
                want,
            )
        }
        _ => {
            let moves = &xiangqi_games()[i];
            let want = moves.iter().map(xiangqi::Move::to_string).collect();
            (
                simulate_xiangqi(moves, profile, i as u64),
                OtherGame::Xiangqi,
                want,
            )
        }
    };
    let truth = add_open_clock(&mut session, open, &setup, i as u64);
    let r = replay_with_tc(&session, game, tc);
    (session, truth, want, r)
}

fn replay_with_tc(session: &OtherGameSession, game: GameId, tc: &str) -> Played {
    let text = boardcast_sim::open::capture_text(
        session,
        &[
            ("board".into(), "7".into()),
            ("game".into(), game.name().into()),
            ("time_control".into(), tc.into()),
        ],
        true,
    );
    crate::evidence::every_alert_slices(&text);
    boardcast::replay::replay_game_text(
        &text,
        boardcast::track::Config::default(),
        std::path::Path::new("clock.capture"),
    )
    .unwrap()
}

fn clock_events(r: &Played) -> Vec<&Event> {
    r.events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Clock { .. }))
        .collect()
}

/// The `[%clk h:mm:ss]` values of a record, in order.
fn clks(record: &str) -> Vec<String> {
    record
        .split("[%clk ")
        .skip(1)
        .map(|rest| rest.split(']').next().unwrap().to_owned())
        .collect()
}

fn hms(s: u32) -> String {
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[test]
fn presses_complete_moves_and_the_records_carry_every_clock_time() {
    for game in [GameId::Draughts, GameId::Xiangqi] {
        for (i, face) in [(3, Face::Left), (11, Face::Right)] {
            let (_, truth, want, r) = clocked(game, i, "1800+10", face, HUMAN);
            let what = format!("{game:?} game {i}, first player's clock on the {face:?}");
            assert_eq!(ids(&r), want, "{what}");
            assert_eq!(errors(&r), Vec::<String>::new(), "{what}");
            assert_eq!(truth.flag, None, "{what}");
            assert_eq!(truth.presses.len(), want.len(), "{what}");
            // Every move carries the mover's clock after its press, as the
            // clock showed it.
            let expected: Vec<String> = truth.presses.iter().map(|(_, s)| hms(*s)).collect();
            assert_eq!(clks(&r.records), expected, "{what}\n{}", r.records);
            // The clock events name the game's sides.
            let [first, second] = game.sides();
            let events = clock_events(&r);
            assert!(events.len() > want.len(), "{what}: {}", events.len());
            let pressed: Vec<Side> = events
                .iter()
                .filter_map(|e| match e.kind {
                    EventKind::Clock { pressed, .. } => pressed,
                    _ => None,
                })
                .collect();
            let alternating: Vec<Side> = (0..want.len())
                .map(|k| if k % 2 == 0 { first } else { second })
                .collect();
            assert_eq!(pressed, alternating, "{what}");
            let mut named = 0;
            for e in &events {
                let EventKind::Clock {
                    white, black, red, ..
                } = e.kind
                else {
                    unreachable!()
                };
                if white.is_none() && black.is_none() && red.is_none() {
                    // Before the game began: faces only.
                    continue;
                }
                named += 1;
                assert!(black.is_some(), "{what}: {e:?}");
                assert_eq!(red.is_some(), game == GameId::Xiangqi, "{what}: {e:?}");
                assert_eq!(white.is_some(), game == GameId::Draughts, "{what}: {e:?}");
            }
            assert!(named >= want.len(), "{what}: {named}");
        }
    }
}

#[test]
fn the_records_with_clock_times_read_back_to_the_same_moves() {
    let (_, _, want, r) = clocked(GameId::Draughts, 5, "900+5", Face::Left, HUMAN);
    let games = draughts::read_pdn(&r.records).unwrap();
    let read: Vec<String> = games[0].moves.iter().map(draughts::Move::id).collect();
    assert_eq!(read, want);
    let (_, _, want, r) = clocked(GameId::Xiangqi, 5, "900+5", Face::Right, HUMAN);
    let rec = pgn::read(&r.records).unwrap();
    let read: Vec<String> = rec.moves.iter().map(xiangqi::Move::to_string).collect();
    assert_eq!(read, want);
    assert!(r.records.contains("{[%clk "), "{}", r.records);
}

/// The flag alert of a replay.
fn flag(r: &Played) -> Option<(Side, Option<String>, String)> {
    r.events.iter().find_map(|e| match &e.kind {
        EventKind::Alert(a) if a.kind == AlertKind::Flag => {
            Some((a.side.unwrap(), a.law.clone(), a.message.clone()))
        }
        _ => None,
    })
}

#[test]
fn a_fallen_flag_loses_on_time_by_each_rule_book() {
    for (game, law, cite) in [
        (GameId::Draughts, "1.30", "art. 1.30"),
        (GameId::Xiangqi, "16", "Art. 16"),
    ] {
        // Thirty seconds for the game: a player thinking 1.5-9 s a move
        // runs out within a few moves.
        let (_, truth, _, r) = clocked(game, 7, "30", Face::Right, HUMAN);
        let (seat, _) = truth.flag.expect("a flag falls");
        let side = game.side(seat == Side::White);
        let (flagged, got_law, message) = flag(&r).expect("a flag alert");
        assert_eq!(flagged, side, "{game:?}: {message}");
        assert_eq!(got_law.as_deref(), Some(law), "{game:?}");
        assert!(
            message.starts_with(&format!("{}'s flag fell", side.name())),
            "{message}"
        );
        assert!(
            message.ends_with(&format!("{} loses on time ({cite}).", side.name())),
            "{message}"
        );
    }
}

#[test]
fn a_press_without_a_move_is_a_violation_in_xiangqi_and_only_noted_in_draughts() {
    for (game, law) in [(GameId::Draughts, None), (GameId::Xiangqi, Some("21"))] {
        let (mut session, truth, want, _) = clocked(game, 2, "1800", Face::Left, HUMAN);
        // After the last press, the player to move presses again without
        // moving: the running face hands over with nothing on the board.
        let (last_press, _) = *truth.presses.last().unwrap();
        let open = if game == GameId::Draughts {
            OtherGame::Draughts
        } else {
            OtherGame::Xiangqi
        };
        let last_clock = session
            .lines
            .iter()
            .rev()
            .find(|(_, l)| l.starts_with("clock "))
            .map(|(_, l)| l.clone())
            .unwrap();
        let open = open.protocol();
        let decoder = boardcast_protocols::open::Decoder::with_game(open, open.default_geometry());
        let Ok(boardcast_protocols::open::Line::Clock(mut reading)) = decoder.parse(&last_clock)
        else {
            panic!("{last_clock}")
        };
        let runner = reading.running.expect("a clock runs");
        reading.running = Some(runner.other());
        let at = last_press + 5_000;
        session.lines.push((
            at,
            boardcast_protocols::open::Line::Clock(reading)
                .encode(open)
                .trim_end()
                .to_owned(),
        ));
        session.lines.sort_by_key(|(t, _)| *t);
        let r = replay_with_tc(&session, game, "1800");
        assert_eq!(ids(&r), want, "{game:?}");
        // The player to move after the last ply pressed.
        let presser = game.side(want.len() % 2 == 0);
        let alert = r
            .events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Alert(a) if a.kind == AlertKind::ClockPress => Some(a.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{game:?}: no press alert"));
        assert_eq!(alert.side, Some(presser), "{game:?}");
        assert_eq!(alert.law.as_deref(), law, "{game:?}");
        let cited = law.map(|l| format!(" (Art. {l})")).unwrap_or_default();
        assert_eq!(
            alert.message,
            format!(
                "{} pressed the clock with no move on the board{cited}.",
                presser.name()
            )
        );
    }
}
