//! Arbiter alerts read back by python-chess (moved from tests/alerts.rs).

use boardcast::replay::replay_reader;
use boardcast::track::Config;
use boardcast_sim::{self as sim, faults};

use crate::games::{all_games, python_chess_mainlines};

#[test]
fn an_irregular_game_is_written_as_pgn_parts_every_reader_accepts() {
    if !crate::util::require(&[crate::util::Tool::Python("chess")]) {
        return;
    }
    let game = &all_games()[5];
    let case = (0..40)
        .find_map(|seed| faults::chess::inject(game, faults::FaultKind::IllegalStands, seed))
        .unwrap();
    let text = sim::dgt::capture_text(&case.session, &[]);
    let replay = replay_reader(text.as_bytes(), Config::default(), "f".as_ref()).unwrap();
    let record = replay.log.current().unwrap();
    assert!(record.is_irregular());
    let pgn = boardcast::sink::pgn::render(record, &Default::default());
    let parts = python_chess_mainlines(&pgn);
    assert_eq!(parts.len(), 2);
    let k = case.at_ply;
    assert_eq!(parts[0], case.record[..k]);
    assert_eq!(parts[1], case.record[k + 1..]);
}
