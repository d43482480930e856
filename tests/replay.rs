//! Issue "Foundation": captures of cleanly played games replay to the right
//! PGN, independent readers accept it, and corrupted captures are handled.

use boardcast::board::Config;
use boardcast::replay::replay_reader;
use boardcast_sim::{self as sim, Clean};

use crate::games::load;

/// A capture of the first master game, played cleanly.
fn clean_capture() -> (boardcast_sim::SourceGame, String) {
    let game = load("master-games.pgn").swap_remove(0);
    let session = sim::simulate(&game, &mut Clean, 7, false);
    (game, sim::dgt::capture_text(&session, &[]))
}

fn replay_sans(text: &str) -> Vec<String> {
    let replay = replay_reader(text.as_bytes(), Config::default(), "t".as_ref()).unwrap();
    replay
        .log
        .current()
        .map(|g| g.sans.clone())
        .unwrap_or_default()
}

#[test]
fn garbage_between_frames_does_not_change_the_game() {
    let (game, text) = clean_capture();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut out = String::new();
    let mut garbage_lines = 0;
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some((t, rest)) = line.split_once(" < ") {
            // After every board line, a line of random bytes at the same time.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let n = 1 + (rng % 6) as usize;
            let bytes: Vec<String> = (0..n)
                .map(|k| {
                    format!(
                        "{:02x}",
                        ((rng >> (8 * k)) as u8 & 0x7f) | (0x80 * u8::from(k == 0))
                    )
                })
                .collect();
            let _ = rest;
            out.push_str(&format!("{t} < {}\n", bytes.join(" ")));
            garbage_lines += 1;
        }
    }
    assert!(garbage_lines > 100);
    let replay = replay_reader(out.as_bytes(), Config::default(), "g".as_ref()).unwrap();
    assert!(replay.stats.skipped_bytes > 0 || replay.stats.bad_frames > 0);
    assert_eq!(replay.log.current().unwrap().sans, game.sans);
}

#[test]
fn truncated_frames_do_not_panic_and_lose_only_what_they_carried() {
    let (game, text) = clean_capture();
    // Cut the last byte off every tenth field update from line 200 on: that
    // reading is lost and the next frame's header resynchronises the decoder.
    let mut out = String::new();
    let mut first_cut = None;
    for (i, line) in text.lines().enumerate() {
        if i >= 200 && i % 10 == 9 && line.contains(" < 8e ") {
            first_cut.get_or_insert(line.split(' ').next().unwrap().parse::<u64>().unwrap());
            out.push_str(&line[..line.len() - 3]);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    let replay = replay_reader(out.as_bytes(), Config::default(), "t".as_ref()).unwrap();
    assert!(replay.stats.bad_frames + replay.stats.skipped_bytes > 0);
    // The game may stall where a reading was lost (until the board is read
    // whole again), but every move before the damage is there and nothing
    // published is wrong.
    let record = replay.log.current().unwrap();
    let before = record
        .times
        .iter()
        .filter(|t| **t < first_cut.unwrap())
        .count();
    assert!(before > 10);
    assert_eq!(record.sans[..], game.sans[..record.sans.len()]);
    // A capture cut in the middle of a frame replays what came before.
    let half = &text[..text.len() / 2];
    let half = &half[..half.rfind('\n').unwrap() + 1];
    let cut = format!("{half}{}", "9999999 < 8e 00\n");
    let sans = replay_sans(&cut);
    assert!(!sans.is_empty() && sans[..] == game.sans[..sans.len()]);
}

/// Issue 28, resume noise: a daemon killed while a piece was in the hand.
/// Its capture ends with the lift; the next session's capture (which
/// resumed it) begins with the board's dump, the move made. Whatever the
/// end of the first capture would have raised had time gone on (the
/// board differing from the game), no daemon ever published: the second
/// session must not publish its clearing either.
#[test]
fn a_resume_after_a_kill_mid_move_publishes_no_clearing_of_an_alert_never_raised() {
    use boardcast::capture::{Header, Writer};
    use boardcast::event::EventKind;
    use boardcast::family::Family;

    let (game, _) = clean_capture();
    let mut session = sim::simulate(&game, &mut Clean, 3, false);
    // The completing reading of ply 11: the capture ends just before it,
    // with the piece lifted.
    let done = session
        .truth
        .iter()
        .find_map(|t| match t {
            sim::Truth::Ply { ply: 11, at } => Some(*at),
            _ => None,
        })
        .expect("ply 11");
    session.readings.retain(|(t, _)| *t < done);
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("1-a.capture");
    std::fs::write(&first, sim::dgt::capture_text(&session, &[])).unwrap();
    let last = session.readings.last().expect("readings").0;
    // The next session: the board's dump at connection, ply 11 made.
    let after = game.moves[..11]
        .iter()
        .fold(game.start.clone(), |p, m| p.play(*m));
    let header = Header {
        protocol: Family::Dgt,
        meta: vec![("resumed_from".into(), "1-a.capture".into())],
    };
    let mut w = Writer::new(Vec::new(), &header).unwrap();
    sim::dgt::write_handshake(
        &mut w,
        last + 1_500,
        &sim::faults::cells_of(after.board()),
        false,
    )
    .unwrap();
    let second = String::from_utf8(w.into_inner()).unwrap();
    let path = dir.path().join("1-b.capture");
    std::fs::write(&path, &second).unwrap();

    let replay = boardcast::replay::replay_file(&path, Config::default()).unwrap();
    assert_eq!(replay.resumed_from, vec![first]);
    assert_eq!(replay.log.games()[0].sans, game.sans[..11]);
    let alerts: Vec<String> = replay
        .events
        .iter()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Alert(_) => Some(e.to_json()),
            _ => None,
        })
        .collect();
    assert!(alerts.is_empty(), "{alerts:#?}");
}
