//! Issue "Arbiter tools": the evidence behind every alert. Each error or
//! action alert carries the span of readings behind it, and `boardcast
//! replay --evidence` cuts a capture slice of them that replays to the
//! same alert, for every alert kind of every game.

use std::path::{Path, PathBuf};

use boardcast::event::{Alert, AlertKind, EventKind};
use boardcast::replay::replay_file;
use boardcast::replay::slice::{Slice, SliceStart, write_slices, write_slices_where};
use boardcast::track::Config;
use boardcast_rules::draughts;
use boardcast_sim::faults::FaultKind;
use boardcast_sim::open::{OtherGameProfile, OtherGameSession, capture_text, read_xiangqi_games};
use boardcast_sim::{self as sim, faults};

use crate::games::all_games;

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("boardcast-evidence-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The alerts a capture raised and did not withdraw (`None`: it does
/// not replay).
fn raised(capture: &Path) -> Option<Vec<Alert>> {
    let replay = replay_file(capture, Config::default()).ok()?;
    Some(
        replay
            .events
            .into_iter()
            .filter_map(|(_, e)| match e.kind {
                EventKind::Alert(a) if !a.cleared => Some(a),
                _ => None,
            })
            .collect(),
    )
}

/// The error and action alerts a capture raised and did not withdraw.
fn acted_on(capture: &Path) -> Vec<Alert> {
    let mut alerts = raised(capture).unwrap();
    alerts.retain(|a| a.kind.severity() != boardcast::event::Severity::Notice);
    alerts
}

/// Slices `capture` and checks every slice: one per error or action alert,
/// named by its `evidence.seq`, replaying to an alert of the same kind for
/// the same side. Returns the slices.
fn sliced(capture: &Path, dir: &Path) -> (Vec<Alert>, Vec<Slice>) {
    let alerts = acted_on(capture);
    let slices = write_slices(capture, Config::default(), dir).unwrap();
    assert_eq!(
        slices.iter().map(|s| s.seq).collect::<Vec<_>>(),
        alerts
            .iter()
            .map(|a| a.evidence.unwrap().seq)
            .collect::<Vec<_>>(),
        "{}: one slice per alert",
        capture.display()
    );
    for (alert, slice) in alerts.iter().zip(&slices) {
        let again = acted_on(&slice.path);
        assert!(
            again
                .iter()
                .any(|a| a.kind == alert.kind && a.side == alert.side),
            "{}: {:?} {:?} not raised again from {:?}: {again:?}",
            slice.path.display(),
            alert.kind,
            alert.side,
            slice.from
        );
        assert!(slice.reproduced);
        let evidence = alert.evidence.unwrap();
        assert!(evidence.from_t_ms <= evidence.to_t_ms);
    }
    (alerts, slices)
}

/// How the slices of a set of alerts start, counted.
#[derive(Debug, Default)]
struct Starts {
    evidence: usize,
    game: usize,
    capture: usize,
}

impl Starts {
    fn add(&mut self, s: &Slice) {
        match s.from {
            SliceStart::Evidence => self.evidence += 1,
            SliceStart::GameStart => self.game += 1,
            SliceStart::Capture => self.capture += 1,
        }
    }
}

#[test]
fn chess_faults_on_a_dgt_board_slice_to_the_position_before_and_replay_to_the_same_alert() {
    let dir = folder("chess");
    let games = all_games();
    let mut starts = Starts::default();
    let mut kinds = std::collections::BTreeSet::new();
    for kind in faults::FaultKind::CHESS {
        let mut done = 0;
        for (i, game) in games.iter().enumerate().skip(5).step_by(7) {
            if done == 2 {
                break;
            }
            let Some(case) = faults::chess::inject(game, kind, i as u64) else {
                continue;
            };
            let path = dir.join(format!("{kind:?}-{i}.capture"));
            std::fs::write(&path, sim::dgt::capture_text(&case.session, &[])).unwrap();
            let out = dir.join(format!("{kind:?}-{i}"));
            let (alerts, slices) = sliced(&path, &out);
            assert!(
                alerts.iter().any(|a| a.kind == kind.alert()),
                "{kind:?} {i}"
            );
            for (a, s) in alerts.iter().zip(&slices) {
                kinds.insert(format!("{:?}", a.kind));
                if a.kind != AlertKind::Setup {
                    starts.add(s);
                }
            }
            done += 1;
        }
    }
    println!("chess slices start: {starts:?}; kinds {kinds:?}");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        starts.evidence * 4 >= (starts.evidence + starts.game + starts.capture) * 3,
        "{starts:?}"
    );
}

#[test]
fn draughts_and_xiangqi_faults_slice_to_the_position_before_and_replay_to_the_same_alert() {
    let dir = folder("games");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/tests/data");
    let dgames =
        draughts::read_pdn(&std::fs::read_to_string(data.join("english-draughts.pdn")).unwrap())
            .unwrap();
    let xgames =
        read_xiangqi_games(&std::fs::read_to_string(data.join("xiangqi-random.pgn")).unwrap())
            .unwrap();
    let mut starts = Starts::default();
    let mut check = |case: faults::FaultCase<OtherGameSession>, game: &str, name: String| {
        let meta = vec![("game".to_string(), game.to_string())];
        let path = dir.join(format!("{name}.capture"));
        std::fs::write(&path, capture_text(&case.session, &meta, true)).unwrap();
        let (alerts, slices) = sliced(&path, &dir.join(&name));
        if case.kind.alert().severity() != boardcast::event::Severity::Notice {
            assert!(
                alerts.iter().any(|a| a.kind == case.kind.alert()),
                "{name}: {alerts:?}"
            );
        }
        for (a, s) in alerts.iter().zip(&slices) {
            if a.kind != AlertKind::Setup {
                starts.add(s);
            }
        }
    };
    for (n, kind) in FaultKind::DRAUGHTS.into_iter().enumerate() {
        let mut done = 0;
        for (i, g) in dgames.iter().enumerate().skip(n * 3 + 1) {
            let profile = OtherGameProfile {
                human: true,
                pieces: i % 2 == 0,
                rotated: false,
                real: false,
            };
            if let Some(case) = faults::draughts::inject(&g.moves, kind, profile, i as u64) {
                check(case, "draughts", format!("draughts-{kind:?}-{i}"));
                done += 1;
            }
            if done == 2 {
                break;
            }
        }
    }
    for (n, kind) in FaultKind::XIANGQI.into_iter().enumerate() {
        let mut done = 0;
        for (i, moves) in xgames.iter().enumerate().skip(n * 3 + 1) {
            let profile = OtherGameProfile {
                human: true,
                pieces: i % 2 == 0,
                rotated: i % 3 == 0,
                real: false,
            };
            if let Some(case) = faults::xiangqi::inject(moves, kind, profile, i as u64) {
                check(case, "xiangqi", format!("xiangqi-{kind:?}-{i}"));
                done += 1;
            }
            if done == 2 {
                break;
            }
        }
    }
    println!("draughts and xiangqi slices start: {starts:?}");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        starts.evidence * 4 >= (starts.evidence + starts.game + starts.capture) * 3,
        "{starts:?}"
    );
}

/// Every alert a capture raises (notices too, withdrawals aside) slices to
/// a capture that raises it again, kind and side. Returns the kinds. Used
/// by the scenes of every game (`draughts_xiangqi_alerts`, `game_clocks`) and below.
pub(crate) fn every_alert_slices(text: &str) -> Vec<AlertKind> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = folder(&format!("scene-{n}"));
    let path = dir.join("scene.capture");
    std::fs::write(&path, text).unwrap();
    // A capture that does not replay (a scene of a header error) has no
    // alert to slice.
    let Some(alerts) = raised(&path) else {
        return Vec::new();
    };
    let slices =
        write_slices_where(&path, Config::default(), &dir.join("slices"), |_| true).unwrap();
    assert_eq!(slices.len(), alerts.len(), "{text}");
    for (alert, slice) in alerts.iter().zip(&slices) {
        let again = raised(&slice.path).unwrap();
        assert!(
            again
                .iter()
                .any(|a| a.kind == alert.kind && a.side == alert.side),
            "{:?} {:?} not raised again by {} ({:?}): {again:?}",
            alert.kind,
            alert.side,
            slice.path.display(),
            slice.from
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    alerts.iter().map(|a| a.kind).collect()
}

/// An open-protocol chess capture: `hello chess`, then one `board` line
/// per `(t, placement)`, the placement a FEN's board part.
fn open_chess(boards: &[(u64, String)]) -> String {
    open_capture("chess", "", boards)
}

/// An open-protocol capture of `game` (more header words in `words`):
/// its `hello`, then one `board` line per `(t, placement)`, the placement
/// a FEN's board part or the cells in one run.
fn open_capture(game: &str, words: &str, boards: &[(u64, String)]) -> String {
    let hex = |s: &str| {
        s.bytes()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut text = format!("# boardcast capture v1 protocol=open game={game}{words}\n");
    text += &format!("0 < {}\n", hex(&format!("hello {game}\n")));
    for (t, placement) in boards {
        let mut cells = String::new();
        for c in placement.chars().filter(|c| *c != '/') {
            match c.to_digit(10) {
                Some(n) => cells.extend(std::iter::repeat_n('.', n as usize)),
                None => cells.push(c),
            }
        }
        text += &format!("{t} < {}\n", hex(&format!("board {cells}\n")));
    }
    text
}

/// The board after each of `ucis` from the standard start, a reading
/// every `gap` ms from `t0` (the start position first).
fn chess_game(ucis: &[&str], t0: u64, gap: u64) -> Vec<(u64, String)> {
    use boardcast::games::GamePosition;
    use boardcast::games::chess::Position;
    let mut pos = Position::standard();
    let board = |p: &Position| p.fen().split(' ').next().unwrap().to_string();
    let mut out = vec![(t0, board(&pos))];
    for (i, id) in ucis.iter().enumerate() {
        let m = pos
            .legal_moves()
            .find(|m| pos.id(m) == *id)
            .unwrap_or_else(|| panic!("{id}"));
        pos = GamePosition::play(&pos, &m);
        out.push((t0 + gap * (i as u64 + 1), board(&pos)));
    }
    out
}

#[test]
fn every_chess_alert_kind_slices_to_a_capture_that_raises_it_again() {
    let mut kinds = std::collections::HashSet::new();
    // Threefold (a notice), then fivefold (an action): knights out and back.
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"].repeat(4);
    kinds.extend(every_alert_slices(&open_chess(&chess_game(
        &shuffle, 500, 3_000,
    ))));
    // A game first read in the middle: unrecognised.
    let mid = "r4rk1/pp3ppp/2n5/8/3q4/8/PP3PPP/R2Q1RK1".to_string();
    kinds.extend(every_alert_slices(&open_chess(&[
        (500, mid.clone()),
        (9_000, mid),
    ])));
    // A second white king set on d4 for a while: an impossible position;
    // the white king off the board for a while: displaced pieces.
    let mut lines = chess_game(&["e2e4", "e7e5"], 500, 3_000);
    let last = lines.last().unwrap().1.clone();
    lines.push((9_000, last.replace("4P3", "3KP3")));
    lines.push((30_000, last.clone()));
    lines.push((33_000, last.replace("RNBQKBNR", "RNBQ1BNR")));
    lines.push((60_000, last));
    kinds.extend(every_alert_slices(&open_chess(&lines)));
    // An illegal move completed by the reply, a touched piece put back,
    // a wrong set-up: the DGT fault sessions.
    for (i, kind) in [
        faults::FaultKind::IllegalStands,
        faults::FaultKind::WrongSetup,
    ]
    .into_iter()
    .enumerate()
    {
        let games = all_games();
        let case = games
            .iter()
            .enumerate()
            .skip(10 + i)
            .find_map(|(j, g)| faults::chess::inject(g, kind, j as u64))
            .unwrap();
        kinds.extend(every_alert_slices(&sim::dgt::capture_text(
            &case.session,
            &[],
        )));
    }
    // A flag (Law 6.9) on a DGT board with its clock.
    let game = &all_games()[20];
    let setup = boardcast_sim::clock::ClockSetup::new(
        boardcast::clock::TimeControl::parse("20/20:60").unwrap(),
    );
    let mut fast = crate::clock_games::steady();
    fast.blitz = 1.0;
    let (session, truth) = crate::clock_games::clocked(game, &mut fast, &setup, 4, false);
    assert!(truth.flag.is_some());
    let meta = vec![("time_control".to_string(), "20/20:60".to_string())];
    kinds.extend(every_alert_slices(&sim::dgt::capture_text(&session, &meta)));
    for want in [
        AlertKind::Threefold,
        AlertKind::Fivefold,
        AlertKind::Unrecognised,
        AlertKind::IllegalPosition,
        AlertKind::IllegalMove,
        AlertKind::Setup,
        AlertKind::Flag,
    ] {
        assert!(kinds.contains(&want), "{want:?} not among {kinds:?}");
    }
}

/// The boards of a game of `rules` from `fen` through `ids`, a reading
/// every `gap` ms from `t0` (the start first), as `board` line cells.
fn boards_of<G: boardcast::games::Game>(
    rules: &G,
    fen: &str,
    ids: &[&str],
    t0: u64,
    gap: u64,
) -> Vec<(u64, String)> {
    use boardcast::games::GamePosition;
    let mut pos = rules.parse_position(fen).expect("a FEN of the game");
    let mut out = vec![(t0, rules.placement_text(pos.board()))];
    for (i, id) in ids.iter().enumerate() {
        let m = pos
            .legal_moves()
            .find(|m| pos.id(m) == *id)
            .unwrap_or_else(|| panic!("{id}"));
        pos = GamePosition::play(&pos, &m);
        out.push((t0 + gap * (i as u64 + 1), rules.placement_text(pos.board())));
    }
    out
}

/// An open-protocol capture of `game` whose header takes up the game at
/// `fen` (a capture slice's words), then `board` lines.
fn taken_up(game: &str, fen: &str, boards: &[(u64, String)]) -> String {
    let words = format!(" start={} moves= at=0", fen.replace(' ', "_"));
    open_capture(game, &words, boards)
}

#[test]
fn move_count_and_perpetual_rulings_slice_too() {
    use boardcast::games::chess::{Chess, Variant};
    let chess = Chess::new(Variant::Auto);
    // Fifty moves (a notice) and seventy-five (an action) from a position
    // whose move counter is near them.
    for (fen, want) in [
        ("4k3/8/8/8/8/8/8/R3K3 w - - 98 80", AlertKind::FiftyMoves),
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 148 100",
            AlertKind::SeventyFiveMoves,
        ),
    ] {
        let lines = boards_of(&chess, fen, &["a1a2", "e8e7", "a2a1", "e7e8"], 1_000, 3_000);
        let kinds = every_alert_slices(&taken_up("chess", fen, &lines[1..]));
        assert!(kinds.contains(&want), "{want:?} not among {kinds:?}");
    }
    // Xiangqi: a chariot checking on and on (the arbiter rules).
    let xiangqi = boardcast::games::xiangqi::Xiangqi::default();
    let fen = "4k4/9/9/9/9/9/9/9/R8/3K5 w - - 0 1";
    let mut ids: Vec<&str> = vec!["a1a9", "e9e8"];
    for _ in 0..4 {
        ids.extend(["a9a8", "e8e9", "a8a9", "e9e8"]);
    }
    let lines = boards_of(&xiangqi, fen, &ids, 1_000, 3_000);
    let kinds = every_alert_slices(&taken_up("xiangqi", fen, &lines[1..]));
    assert!(kinds.contains(&AlertKind::PerpetualCheck), "{kinds:?}");
    // A chariot chasing an unprotected horse (perpetual chase), and both
    // sides chasing (a repetition ruled a draw).
    for (fen, cycle, want) in [
        (
            "4k4/9/9/9/2n6/9/9/9/9/1R1K5 w - - 0 1",
            ["b0c0", "c5b7", "c0b0", "b7c5"],
            AlertKind::PerpetualChase,
        ),
        (
            "5k3/9/9/9/9/9/7r1/9/2nRA3c/4K4 w - - 0 1",
            ["e1f0", "h3h1", "f0e1", "h1h3"],
            AlertKind::Repetition,
        ),
    ] {
        let ids = cycle.repeat(4);
        let lines = boards_of(&xiangqi, fen, &ids, 1_000, 3_000);
        let kinds = every_alert_slices(&taken_up("xiangqi", fen, &lines[1..]));
        assert!(kinds.contains(&want), "{want:?} not among {kinds:?}");
    }
}
