//! Clock times in the PGN, read back by python-chess (moved from
//! tests/clocks.rs; the helpers both share are in tests/clock_games.rs).

use boardcast::clock::{Face, TimeControl};
use boardcast::event::EventKind;
use boardcast::sink::pgn::{Tags, render};
use boardcast_sim::clock::ClockSetup;

use crate::clock_games::{clocked, replay, steady};
use crate::games::{all_games, python_chess_mainlines};

#[test]
fn every_move_gets_the_movers_clock_after_the_press_whichever_way_round() {
    if !crate::util::require(&[crate::util::Tool::Python("chess")]) {
        return;
    }
    let games = all_games();
    for (i, (rotated, white_face)) in [
        (false, Face::Left),
        (true, Face::Left),
        (false, Face::Right),
        (true, Face::Right),
    ]
    .into_iter()
    .enumerate()
    {
        let game = &games[10 + i];
        let setup = ClockSetup {
            white_face,
            ..ClockSetup::new(TimeControl::parse("40/5400:1800+30").unwrap())
        };
        let (session, truth) = clocked(game, &mut steady(), &setup, i as u64, rotated);
        assert!(truth.flag.is_none());
        let replay = replay(&session, Some("40/5400:1800+30"));
        let record = replay.log.current().unwrap();
        assert_eq!(record.sans, game.sans);
        let expected: Vec<Option<u32>> = truth.presses.iter().map(|(_, s)| Some(*s)).collect();
        assert_eq!(
            record.clks, expected,
            "rotated {rotated}, White on the {white_face:?}"
        );
        assert!(record.emts[1..].iter().all(Option::is_some));
        let pgn = render(record, &Tags::default());
        assert_eq!(pgn.matches("[%clk ").count(), game.sans.len());
        assert!(pgn.contains("[WhiteClock \"") && pgn.contains("[BlackClock \""));
        assert_eq!(python_chess_mainlines(&pgn), vec![game.sans.clone()]);
        // Clock events name colours once the faces are known.
        let named = replay.events.iter().any(|(_, e)| {
            matches!(
                e.kind,
                EventKind::Clock {
                    white: Some(_),
                    black: Some(_),
                    connected: true,
                    ..
                }
            )
        });
        assert!(named);
    }
}
