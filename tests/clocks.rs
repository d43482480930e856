//! Issue "Clocks": clock times and presses from the board, `%clk` in the
//! PGN, flags judged against the time control.

use boardcast::clock::{Face, TimeControl};
use boardcast::event::{EventKind, GameId, Side};
use boardcast::family::Family;
use boardcast::games::chess::Position;
use boardcast::replay::Replay;
use boardcast::sink::pgn::{Tags, render};
use boardcast::track::Config;
use boardcast_sim::clock::{ClockSetup, add_clock, no_clock};
use boardcast_sim::{self as sim, Human, SourceGame};

use crate::clock_games::{clocked, replay, steady};
use crate::games::all_games;

fn fast() -> Human {
    Human {
        blitz: 1.0,
        ..steady()
    }
}

#[test]
fn a_press_publishes_the_move_at_once() {
    let game = &all_games()[3];
    let setup = ClockSetup::new(TimeControl::parse("5400+30").unwrap());
    let (session, truth) = clocked(game, &mut steady(), &setup, 9, false);
    let replay = replay(&session, None);
    let mut at_press = 0;
    let mut moves = 0;
    for (published, e) in &replay.events {
        if let EventKind::Move { ply, .. } = e.kind {
            moves += 1;
            let press = truth.presses[ply as usize - 1].0;
            // Published no later than the press message (which arrives
            // within 60 ms of the press).
            assert!(
                *published <= press + 60,
                "ply {ply}: published {published}, pressed {press}"
            );
            at_press += usize::from(*published >= press);
        }
    }
    assert_eq!(moves, game.sans.len());
    assert!(
        at_press > moves / 3,
        "{at_press} of {moves} moves published by the press"
    );
}

fn flag_message(replay: &Replay) -> Option<(Side, String)> {
    replay.events.iter().find_map(|(_, e)| match &e.kind {
        EventKind::Alert(a) if a.kind == boardcast::event::AlertKind::Flag => {
            Some((a.side.unwrap(), a.message.clone()))
        }
        _ => None,
    })
}

#[test]
fn law_6_9_a_flag_before_the_required_moves_loses() {
    let game = &all_games()[20];
    let setup = ClockSetup::new(TimeControl::parse("20/20:60").unwrap());
    let (session, truth) = clocked(game, &mut fast(), &setup, 4, false);
    let (side, _) = truth.flag.expect("a flag falls");
    let replay = replay(&session, Some("20/20:60"));
    let (flagged, message) = flag_message(&replay).expect("a flag alert");
    assert_eq!(flagged, side);
    assert!(message.contains("of the 20 moves required"), "{message}");
    assert!(
        message.ends_with(&format!("{} loses on time (Law 6.9).", side.name())),
        "{message}"
    );
}

#[test]
fn law_6_4_a_flag_after_the_required_moves_is_no_loss() {
    // The clock is set up wrongly and does not add the second period.
    let game = all_games()
        .into_iter()
        .find(|g| g.sans.len() > 80 && !g.start.is_chess960())
        .unwrap();
    let setup = ClockSetup {
        adds_periods: false,
        ..ClockSetup::new(TimeControl::parse("20/60:60").unwrap())
    };
    let (session, truth) = clocked(&game, &mut fast(), &setup, 5, false);
    let (side, _) = truth.flag.expect("a flag falls");
    let replay = replay(&session, Some("20/60:60"));
    let (flagged, message) = flag_message(&replay).expect("a flag alert");
    assert_eq!(flagged, side);
    assert!(
        message.contains("had completed the 20 moves it requires"),
        "{message}"
    );
    assert!(message.contains("no loss"), "{message}");
}

#[test]
fn law_6_9_a_flag_against_a_bare_king_is_a_draw() {
    // White has king and pawn, Black a bare king: whoever flags, the
    // verdict depends on what the other side has.
    let start = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false).unwrap();
    let mut pos = start.clone();
    let (mut moves, mut sans) = (Vec::new(), Vec::new());
    for i in 0..80 {
        let legal: Vec<_> = pos
            .legal_moves()
            .filter(|m| m.promotion().is_none())
            .collect();
        if legal.is_empty() || pos.outcome().is_some() {
            break;
        }
        let m = legal[(i * 7) % legal.len()];
        sans.push(pos.san(m));
        pos = pos.play(m);
        moves.push(m);
    }
    let game = SourceGame {
        start,
        moves,
        sans,
        tags: Vec::new(),
    };
    let setup = ClockSetup::new(TimeControl::parse("20").unwrap());
    let mut session = sim::simulate(&game, &mut fast(), 3, false);
    let truth = add_clock(&mut session, &setup, Side::White, 3);
    let (side, _) = truth.flag.expect("a flag falls");
    // Resume from the position: the reconstructor needs a start, so feed
    // the capture through a pipeline started from that FEN.
    let text = sim::dgt::capture_text(&session, &[("time_control".into(), "20".into())]);
    let setup = boardcast::setup::BoardSetup {
        time_control: Some(TimeControl::parse("20").unwrap()),
        ..boardcast::setup::BoardSetup::new("1", Family::Dgt, GameId::Chess)
    };
    let mut pipeline = boardcast::pipeline::BoardPipeline::new(&setup, Config::default());
    pipeline
        .take_up(0, &game.start.fen(), &[], false)
        .expect("the game's start is taken up");
    let (_, reader) = boardcast::capture::Reader::new(text.as_bytes()).unwrap();
    let mut alerts = Vec::new();
    for chunk in reader {
        let chunk = chunk.unwrap();
        pipeline.handle_bytes(chunk.t_ms, chunk.dir, &chunk.bytes);
        while let Some(e) = pipeline.poll_event() {
            if let EventKind::Alert(a) = e.kind {
                alerts.push(a);
            }
        }
    }
    let flag = alerts
        .iter()
        .find(|a| a.kind == boardcast::event::AlertKind::Flag)
        .expect("a flag alert");
    assert_eq!(flag.side, Some(side));
    match side {
        Side::White => assert!(
            flag.message.ends_with(
                "the game is drawn, as Black cannot checkmate by any legal sequence (Law 6.9)."
            ),
            "{}",
            flag.message
        ),
        Side::Black => assert!(
            flag.message.ends_with("Black loses on time (Law 6.9)."),
            "{}",
            flag.message
        ),
        Side::Red => unreachable!("a chess clock flags White or Black"),
    }
}

#[test]
fn a_board_without_a_clock_gets_estimated_clocks_from_move_times() {
    let game = &all_games()[7];
    let mut session = sim::simulate(game, &mut steady(), 2, false);
    no_clock(&mut session);
    let replay = replay(&session, Some("5400+30"));
    let not_connected = replay.events.iter().any(|(_, e)| {
        matches!(
            e.kind,
            EventKind::Clock {
                connected: false,
                estimated: false,
                ..
            }
        )
    });
    assert!(not_connected, "the missing clock is reported");
    let record = replay.log.current().unwrap();
    assert!(record.clock_estimated);
    assert!(record.clks.iter().all(Option::is_some));
    let pgn = render(record, &Tags::default());
    assert!(
        pgn.contains("[ClockNote \"clock times estimated from move times, no clock connected\"]")
    );
    // Without a time control nothing is estimated.
    let replay = self::replay(&session, None);
    assert!(
        replay
            .log
            .current()
            .unwrap()
            .clks
            .iter()
            .all(Option::is_none)
    );
}

#[test]
fn law_6_2a_a_press_with_no_move_on_the_board_is_reported() {
    // White's clock runs; White presses without moving.
    use boardcast::clock::ClockReading;
    use boardcast_sim::clock::Signal;
    let game = &all_games()[0];
    let mut session = sim::simulate(game, &mut steady(), 1, false);
    session.readings.clear();
    let r = |left, right, running| {
        Signal::Times(ClockReading {
            left,
            right,
            running,
            flag: None,
            battery_low: false,
        })
    };
    session.readings.push((
        5_000,
        sim::Sensed::Square(
            boardcast::games::chess::Square::A2,
            boardcast::track::Cell::Empty,
        ),
    ));
    session.readings.push((
        5_200,
        sim::Sensed::Square(
            boardcast::games::chess::Square::A2,
            session.initial[boardcast::games::chess::Square::A2 as usize],
        ),
    ));
    session.clock = vec![
        (1_000, r(600, 600, Some(Face::Left))),
        (2_000, r(599, 600, Some(Face::Left))),
        (3_000, r(598, 600, Some(Face::Right))),
    ];
    let replay = replay(&session, None);
    let alert = replay.events.iter().find_map(|(_, e)| match &e.kind {
        EventKind::Alert(a) if a.kind == boardcast::event::AlertKind::ClockPress => Some(a.clone()),
        _ => None,
    });
    let alert = alert.expect("a clock_press alert");
    assert_eq!(alert.side, Some(Side::White));
    assert_eq!(alert.law.as_deref(), Some("6.2a"));
    // Its evidence slices to a capture that raises it again.
    let kinds = crate::evidence::every_alert_slices(&sim::dgt::capture_text(&session, &[]));
    assert!(
        kinds.contains(&boardcast::event::AlertKind::ClockPress),
        "{kinds:?}"
    );
}
