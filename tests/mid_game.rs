//! Issue 28, parity: a draughts or xiangqi board first read in the middle
//! of a game is followed from the position it shows, with a
//! `start_not_seen` notice; the first move tells the side to move (and the
//! board's orientation).

use crate::corpora::{draughts_games, errors, ids, replay, xiangqi_games};
use boardcast::event::{AlertKind, EventKind, GameId};
use boardcast::replay::Played;
use boardcast_protocols::open::{Decoder, Line};
use boardcast_protocols::reading::{Content, Snapshot};
use boardcast_rules::{draughts, xiangqi};
use boardcast_sim::open::{
    OtherGame, OtherGameProfile, OtherGameSession, simulate_draughts, simulate_xiangqi,
};

/// The session as a board first read after ply `k`: its `hello` and the
/// board as it stood then (in the board's own coordinates), three seconds
/// before the lines that followed.
fn first_read_after(session: &OtherGameSession, game: OtherGame, k: usize) -> OtherGameSession {
    let open = game.protocol();
    let decoder = Decoder::with_game(open, open.default_geometry());
    let cut = session.plies[k - 1];
    let mut board: Option<Snapshot> = None;
    let mut hello = None;
    for (t, text) in &session.lines {
        if *t > cut {
            break;
        }
        match decoder.parse(text) {
            Ok(Line::Hello(_)) => hello = Some(text.clone()),
            Ok(Line::Board(s)) => board = Some(s),
            Ok(Line::Up(sq)) => {
                board.as_mut().unwrap().set(sq, Content::Empty);
            }
            Ok(Line::Down { square, piece }) => {
                let content = piece.map_or(Content::Occupied, Content::Piece);
                board.as_mut().unwrap().set(square, content);
            }
            _ => {}
        }
    }
    let mut lines = vec![
        (cut - 3_000, hello.expect("a hello line")),
        (
            cut - 3_000,
            Line::Board(board.unwrap())
                .encode(open)
                .trim_end()
                .to_owned(),
        ),
    ];
    lines.extend(session.lines.iter().filter(|(t, _)| *t > cut).cloned());
    OtherGameSession {
        lines,
        plies: Vec::new(),
    }
}

fn check(r: &Played, want: &[String], fen: &str, what: &str) {
    assert_eq!(ids(r), want, "{what}");
    assert_eq!(errors(r), Vec::<String>::new(), "{what}");
    let start = r
        .events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::GameStart { position, .. } => Some(position.clone()),
            _ => None,
        })
        .expect("a game start");
    // The placement and the side to move (the move counters of a game
    // whose start was not seen are not known).
    let fields = |f: &str| f.split(' ').take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(fields(&start), fields(fen), "{what}");
    let notices: Vec<&str> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Alert(a) if a.kind == AlertKind::StartNotSeen => Some(a.message.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 1, "{what}: {notices:?}");
    assert!(
        notices[0].starts_with("The board was first read in the middle of a game"),
        "{what}: {}",
        notices[0]
    );
}

#[test]
fn a_board_first_read_mid_game_is_followed_from_the_position_it_shows() {
    let games = draughts_games();
    let xgames = xiangqi_games();
    for rotated in [false, true] {
        let profile = OtherGameProfile {
            human: true,
            pieces: true,
            rotated,
            real: false,
        };
        for (i, k) in [(1, 10), (4, 15), (9, 22)] {
            let g = &games[i];
            let session = simulate_draughts(&g.moves, profile, i as u64);
            let cut = first_read_after(&session, OtherGame::Draughts, k);
            let mut pos = draughts::Position::start();
            for m in &g.moves[..k] {
                pos.play(m);
            }
            let want: Vec<String> = g.moves[k..].iter().map(draughts::Move::id).collect();
            let r = replay(&cut, Some("draughts"), false);
            assert_eq!(r.game, GameId::Draughts);
            if i == 1 && !rotated {
                // The `start_not_seen` notice's evidence slices too.
                let meta = [("game".to_string(), "draughts".to_string())];
                let text = boardcast_sim::open::capture_text(&cut, &meta, false);
                let kinds = crate::evidence::every_alert_slices(&text);
                assert!(kinds.contains(&AlertKind::StartNotSeen), "{kinds:?}");
            }
            let what = format!("draughts game {i} read after ply {k}, turned round: {rotated}");
            check(&r, &want, &pos.fen(), &what);

            let moves = &xgames[i];
            let session = simulate_xiangqi(moves, profile, i as u64);
            let cut = first_read_after(&session, OtherGame::Xiangqi, k);
            let mut pos = xiangqi::Position::start();
            for m in &moves[..k] {
                pos.play(*m).unwrap();
            }
            let want: Vec<String> = moves[k..].iter().map(xiangqi::Move::to_string).collect();
            let r = replay(&cut, None, false);
            let what = format!("xiangqi game {i} read after ply {k}, turned round: {rotated}");
            check(&r, &want, &pos.fen(), &what);
        }
    }
}

#[test]
fn a_board_without_piece_identity_first_read_mid_game_waits_for_the_start() {
    let g = &draughts_games()[2];
    let profile = OtherGameProfile {
        human: true,
        pieces: false,
        rotated: false,
        real: false,
    };
    let session = simulate_draughts(&g.moves, profile, 2);
    let cut = first_read_after(&session, OtherGame::Draughts, 12);
    let r = replay(&cut, Some("draughts"), false);
    assert!(ids(&r).is_empty(), "{:?}", ids(&r));
    assert!(
        !r.events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Alert(a) if a.kind == AlertKind::StartNotSeen)),
        "an occupancy board's position is not known"
    );
}
