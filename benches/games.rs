//! Draughts and xiangqi on sensor boards (open protocol): the bundled
//! corpora replayed fault-free, then with injected faults.
//!
//! `cargo bench --bench games` prints two tables per game:
//!
//! 1. Fault-free games under each handling profile (clean and human, with
//!    and without piece identity, the board turned round, and the habits of
//!    the real recordings, `real`): games replayed,
//!    records exact, wrong moves (published moves later retracted, plus
//!    plies of the final record that differ from the game), and error
//!    alerts (must be 0: an alert is an accusation).
//!    Draughts also on an 8x8 vendor board sensing occupancy only (a
//!    Certabo board in occupancy mode, Tabutronic frames).
//! 2. Each fault kind (`boardcast_sim::faults`) injected into games
//!    of the corpus under human handling, alternating boards with and
//!    without piece identity: recall (the expected alert raised, its
//!    message saying what was wrong), its side, the record exact after the
//!    fault was put right, error alerts beyond the expected one never
//!    withdrawn, and how often displaced pieces were reported first.
//!
//! Corpora: the made ones, `rules/tests/data/english-draughts.pdn` (200
//! games), `xiangqi-selfplay.pgn` (200) and `xiangqi-random.pgn` (40);
//! then the real ones, each with both tables of its own (labelled
//! `draughts ACF`, `xiangqi WXF`): `english-draughts-acf.pdn` (300
//! American Checker Federation games) and `xiangqi-wxf-hu.pgn` with
//! `xiangqi-wxf-liu.pgn` (300 World Xiangqi Federation master games; see
//! `rules/tests/data/README.md`).
//! `BENCH_GAMES=N` limits the games per profile and the games the faults
//! are injected into, per corpus (default all);
//! `BENCH_CASES=N` sets the cases per fault kind (default 200);
//! `BENCH_DUMP=dir` writes the capture of each fault case missed;
//! `BENCH_SAVE=dir` writes the capture of every fault-free game replayed,
//! as `<game>-<index from 0>-<pieces|occupancy>[-real].capture` (run one
//! corpus at a time: the names repeat across corpora), to replay with
//! `boardcast replay`; `BENCH_SHOW_ERROR="<profile>"` prints the 15 s
//! before each game's first error alert (`BENCH_SHOW_FROM=ms`: from then),
//! `BENCH_SHOW_WRONG="<profile>"` the moments around its first wrong move;
//! `BENCH_GAME=draughts|xiangqi` and `BENCH_CORPUS=made|real` run one
//! game or one kind of corpus.

#[path = "common.rs"]
#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};

use boardcast::event::EventKind;
use boardcast::replay::{Played, replay_game_text};
use boardcast::track::Config;
use boardcast_rules::{draughts, xiangqi};
use boardcast_sim::faults::{
    self, FaultCase, FaultKind, record_ids, standing_errors, touch_alerts,
};
use boardcast_sim::open::{
    Habits, OtherGameProfile, OtherGameSession, capture_text, read_xiangqi_games,
    simulate_draughts, simulate_draughts_with, simulate_xiangqi_with, tabutronic_capture_text,
};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rules/tests/data")
        .join(name)
}

/// A simulated game's replay; `BENCH_SAVE=dir` also writes its capture
/// there, named by game number and board kind, to replay on its own.
fn replay(
    session: &OtherGameSession,
    game: &str,
    split: bool,
    (i, p): (usize, OtherGameProfile),
) -> Played {
    let meta = vec![
        ("board".to_string(), "1".to_string()),
        ("game".to_string(), game.to_string()),
    ];
    let text = capture_text(session, &meta, split);
    if let Some(dir) = std::env::var_os("BENCH_SAVE") {
        let kind = if p.pieces { "pieces" } else { "occupancy" };
        let real = if p.real { "-real" } else { "" };
        let name = format!("{game}-{i}-{kind}{real}.capture");
        std::fs::create_dir_all(&dir).expect("BENCH_SAVE folder");
        std::fs::write(Path::new(&dir).join(name), &text).expect("BENCH_SAVE capture");
    }
    replay_game_text(&text, Config::default(), Path::new("bench.capture")).unwrap()
}

/// The handling profiles of the fault-free table: the profile's own, then
/// (issue 44) one row per habit of [`Habits`] a game has, on a board with
/// piece identity and on one sensing occupancy only.
fn profiles(game: &str) -> Vec<(&'static str, OtherGameProfile, Habits)> {
    let p = |human, pieces, rotated| OtherGameProfile {
        human,
        pieces,
        rotated,
        real: false,
    };
    let knock = Habits {
        first_move_knock: 1.0,
        ..Habits::default()
    };
    let push = Habits {
        second_mover_knock: 1.0,
        ..Habits::default()
    };
    let slide = Habits {
        capture_slide: 0.5,
        ..Habits::default()
    };
    let mut rows: Vec<(&str, OtherGameProfile)> = vec![
        ("clean, pieces", p(false, true, false)),
        ("clean, occupancy", p(false, false, false)),
        ("human, pieces", p(true, true, false)),
        ("human, occupancy", p(true, false, false)),
        ("human, pieces, turned", p(true, true, true)),
        ("human, occupancy, turned", p(true, false, true)),
        (
            "real, pieces",
            OtherGameProfile {
                real: true,
                ..p(true, true, false)
            },
        ),
        (
            "real, occupancy",
            OtherGameProfile {
                real: true,
                ..p(true, false, false)
            },
        ),
    ];
    let mut out: Vec<(&str, OtherGameProfile, Habits)> = rows
        .drain(..)
        .map(|(n, p)| (n, p, Habits::default()))
        .collect();
    out.push(("knock before move 1, pieces", p(true, true, false), knock));
    out.push((
        "knock before move 1, occupancy",
        p(true, false, false),
        knock,
    ));
    out.push(("2nd mover pushed, pieces", p(true, true, false), push));
    out.push(("2nd mover pushed, occupancy", p(true, false, false), push));
    if game == "xiangqi" {
        out.push(("capture slide, pieces", p(true, true, false), slide));
        out.push(("capture slide, occupancy", p(true, false, false), slide));
    }
    out
}

/// Wrong moves in a replay: final moves published then retracted or taken
/// back (these profiles take no move back), and plies of the final record
/// that differ from the game.
fn wrong_moves(r: &Played, want: &[String]) -> usize {
    let (mut retracted, mut plies) = (0, 0u32);
    for e in &r.events {
        match e.kind {
            EventKind::Move { ply, .. } => plies = ply,
            EventKind::Retract { .. } => retracted += 1,
            EventKind::Takeback { to_ply, .. } => {
                retracted += plies.saturating_sub(to_ply) as usize;
                plies = to_ply;
            }
            _ => {}
        }
    }
    let got = record_ids(r);
    let differ =
        got.iter().zip(want).filter(|(a, b)| a != b).count() + got.len().abs_diff(want.len());
    retracted + differ
}

fn clean_table(
    game: &str,
    games: usize,
    run: impl Fn(usize, OtherGameProfile, Habits) -> (Played, Vec<String>),
    s_lines: impl Fn(usize, OtherGameProfile, Habits) -> Vec<(u64, String)>,
) {
    println!(
        "{game}, fault-free: {:<26} {:>6} {:>7} {:>12} {:>13} {:>13}",
        "profile", "games", "exact", "wrong moves", "error alerts", "touch alerts"
    );
    let kind = if game.starts_with("xiangqi") {
        "xiangqi"
    } else {
        "draughts"
    };
    for (name, profile, habits) in profiles(kind) {
        let (mut exact, mut wrong, mut errors, mut touches) = (0, 0, 0, 0);
        let mut misses = Vec::new();
        for i in 0..games {
            let (r, want) = run(i, profile, habits);
            let w = wrong_moves(&r, &want);
            let e = standing_errors(&r);
            exact += usize::from(record_ids(&r) == want);
            wrong += w;
            errors += e;
            touches += touch_alerts(&r);
            if std::env::var_os("BENCH_SHOW_TOUCH").is_some()
                && touch_alerts(&r) > 0
                && touches <= 3
            {
                show_touch(&r, &s_lines(i, profile, habits));
            }
            if std::env::var("BENCH_SHOW_ERROR").is_ok_and(|n| n == name) && e > 0 {
                println!("   game {}:", i + 1);
                show_error(&r, &s_lines(i, profile, habits));
            }
            if std::env::var("BENCH_SHOW_WRONG").is_ok_and(|n| n == name) && w > 0 {
                println!("   game {}:", i + 1);
                show_wrong(&r, &want, &s_lines(i, profile, habits));
            }
            if (w > 0 || e > 0) && misses.len() < 3 {
                misses.push(format!("game {}: {w} wrong moves, {e} error alerts", i + 1));
            }
        }
        println!(
            "{game}, fault-free: {name:<26} {games:>6} {exact:>7} {wrong:>12} {errors:>13} {touches:>13}"
        );
        for m in misses {
            println!("   miss: {m}");
        }
    }
}

fn fault_table(
    game: &str,
    word: &str,
    kinds: &[FaultKind],
    games: usize,
    cases: usize,
    inject: impl Fn(usize, FaultKind, OtherGameProfile, u64) -> Option<FaultCase<OtherGameSession>>,
) {
    println!(
        "{game}, faults: {:<15} {:>6} {:>6} {:>8} {:>8} {:>8} {:>13} {:>13}",
        "fault", "cases", "games", "recall", "side", "record", "extra errors", "misplaced 1st"
    );
    let only: String = common::env_or("BENCH_KIND", String::new());
    for &kind in kinds {
        if !only.is_empty() && format!("{kind:?}") != only {
            continue;
        }
        let (mut n, mut raised, mut side, mut exact, mut extra, mut reclassified) =
            (0, 0, 0, 0, 0, 0);
        let mut misses = Vec::new();
        let mut distinct = std::collections::HashSet::new();
        for attempt in 0..20 * games {
            if n >= cases {
                break;
            }
            let i = (attempt * 7 + kind as usize * 37) % games;
            let profile = OtherGameProfile {
                human: true,
                pieces: attempt % 2 == 0,
                rotated: attempt % 5 == 4,
                real: false,
            };
            let Some(case) = inject(i, kind, profile, attempt as u64) else {
                continue;
            };
            distinct.insert(i);
            let r = replay(&case.session, word, true, (i, profile));
            let c = case.check(&r);
            n += 1;
            raised += usize::from(c.raised);
            side += usize::from(c.side_right);
            exact += usize::from(c.exact);
            extra += c.extra_errors;
            reclassified += usize::from(c.reclassified);
            let missed = !c.raised || !c.side_right || !c.exact || c.extra_errors > 0;
            if missed && std::env::var_os("BENCH_SHOW").is_some() && misses.len() < 3 {
                show(&case, &r);
            }
            // `BENCH_DUMP=dir`: each miss's capture, to replay on its own.
            if let Some(dir) = std::env::var_os("BENCH_DUMP").filter(|_| missed) {
                let meta = vec![
                    ("board".to_string(), "1".to_string()),
                    ("game".to_string(), word.to_string()),
                ];
                let name = format!("{game}-{kind:?}-game{}-seed{attempt}.capture", i + 1);
                let path = std::path::Path::new(&dir).join(name.replace(' ', "-"));
                std::fs::create_dir_all(&dir).expect("BENCH_DUMP folder");
                std::fs::write(path, capture_text(&case.session, &meta, true)).expect("dump");
            }
            if missed && misses.len() < 3 {
                misses.push(format!(
                    "game {} at ply {} (pieces {}, turned {}, seed {attempt}): {c:?}",
                    i + 1,
                    case.at_ply,
                    profile.pieces,
                    profile.rotated
                ));
            }
        }
        let pct = |k: usize| format!("{:.1}%", 100.0 * k as f64 / n.max(1) as f64);
        println!(
            "{game}, faults: {:<15} {:>6} {:>6} {:>8} {:>8} {:>8} {:>13} {:>13}",
            format!("{kind:?}"),
            n,
            distinct.len(),
            pct(raised),
            pct(side),
            pct(exact),
            extra,
            pct(reclassified)
        );
        for m in misses {
            println!("   miss: {m}");
        }
    }
}

/// The events around the first touch-move alert of a fault-free replay
/// (`BENCH_SHOW_TOUCH=1`).
fn show_touch(r: &Played, lines: &[(u64, String)]) {
    let Some(i) = r
        .events
        .iter()
        .position(|e| matches!(&e.kind, EventKind::Alert(a) if a.kind == boardcast::event::AlertKind::TouchMove))
    else {
        return;
    };
    for e in &r.events[i.saturating_sub(3)..=(i + 1).min(r.events.len() - 1)] {
        println!("   event {} {:?}", e.t_ms, e.kind);
    }
    let t0 = r.events[i.saturating_sub(1)].t_ms;
    for (t, l) in lines.iter().filter(|(t, _)| *t + 200 >= t0).take(12) {
        println!("   line {t} {l}");
    }
}

/// The events and the board's lines in the 15 s before a replay's first
/// error alert (`BENCH_SHOW_ERROR=<profile name>`).
fn show_error(r: &Played, lines: &[(u64, String)]) {
    let Some(t) = r.events.iter().find_map(|e| match &e.kind {
        EventKind::Alert(a) if a.kind.is_error() && !a.cleared => Some(e.t_ms),
        _ => None,
    }) else {
        return;
    };
    let from = common::env_or("BENCH_SHOW_FROM", t - t.min(15_000));
    print_near(r, lines, from, t + 1_000);
}

/// The events and the board's lines from 6 s before a replay's first
/// wrong final move (a move that differs from the game's, or a
/// retraction) to 3 s after it (`BENCH_SHOW_WRONG=<profile name>`).
fn show_wrong(r: &Played, want: &[String], lines: &[(u64, String)]) {
    let Some(t) = r.events.iter().find_map(|e| match &e.kind {
        EventKind::Move { ply, id, .. } if want.get(*ply as usize - 1) != Some(id) => Some(e.t_ms),
        EventKind::Retract { .. } | EventKind::Takeback { .. } => Some(e.t_ms),
        _ => None,
    }) else {
        return;
    };
    print_near(r, lines, t - t.min(6_000), t + 3_000);
}

/// The events of a replay and the board's lines from `from` to `to`.
fn print_near(r: &Played, lines: &[(u64, String)], from: u64, to: u64) {
    let near = |x: u64| (from..=to).contains(&x);
    for e in r.events.iter().filter(|e| near(e.t_ms)) {
        println!("   event {} {:?}", e.t_ms, e.kind);
    }
    for (x, l) in lines.iter().filter(|(x, _)| near(*x)) {
        println!("   line {x} {l}");
    }
}

/// The events of a replay and the board's lines around the fault
/// (`BENCH_SHOW=1`).
fn show(case: &FaultCase<OtherGameSession>, r: &Played) {
    for e in &r.events {
        if !matches!(e.kind, EventKind::Move { ply, .. } if (ply as usize) + 3 < case.at_ply) {
            println!("   event {} {:?}", e.t_ms, e.kind);
        }
    }
    let t0 = r
        .events
        .iter()
        .find_map(|e| match e.kind {
            EventKind::Move { ply, .. } if ply as usize == case.at_ply => Some(e.t_ms),
            _ => None,
        })
        .unwrap_or(0);
    let t0 = if std::env::var_os("BENCH_SHOW_ALL").is_some() {
        0
    } else {
        t0
    };
    for (t, l) in case.session.lines.iter().filter(|(t, _)| *t >= t0).take(40) {
        println!("   line {t} {l}");
    }
}

/// Both tables for a draughts corpus (`label` names it in every line).
fn draughts_tables(
    label: &str,
    games: &[Vec<draughts::Move>],
    limit: usize,
    cases: usize,
    clean: bool,
) {
    let n = games.len().min(limit);
    clean_table(
        label,
        if clean { n } else { 0 },
        |i, profile, habits| {
            let s = simulate_draughts_with(&games[i], profile, habits, i as u64);
            (
                replay(&s, "draughts", profile.human, (i, profile)),
                games[i].iter().map(draughts::Move::id).collect(),
            )
        },
        |i, profile, habits| simulate_draughts_with(&games[i], profile, habits, i as u64).lines,
    );
    // The same games on an 8x8 vendor board that senses occupancy
    // only (a Certabo board in occupancy mode: Tabutronic frames).
    let tabutronic = format!("{label}, tabutronic:");
    println!(
        "{tabutronic} {:<25} {:>6} {:>7} {:>12} {:>13}",
        "profile", "games", "exact", "wrong moves", "error alerts"
    );
    for (name, human, rotated) in [
        ("clean", false, false),
        ("human", true, false),
        ("human, turned", true, true),
    ] {
        let (mut exact, mut wrong, mut errors) = (0, 0, 0);
        let m = if clean { n } else { 0 };
        for (i, g) in games.iter().enumerate().take(m) {
            let profile = OtherGameProfile {
                human,
                pieces: false,
                rotated,
                real: false,
            };
            let s = simulate_draughts(g, profile, i as u64);
            let text = tabutronic_capture_text(&s, &[]);
            let r = replay_game_text(&text, Config::default(), Path::new("t.capture")).unwrap();
            let want: Vec<String> = g.iter().map(draughts::Move::id).collect();
            exact += usize::from(record_ids(&r) == want);
            wrong += wrong_moves(&r, &want);
            errors += standing_errors(&r);
        }
        println!("{tabutronic} {name:<25} {m:>6} {exact:>7} {wrong:>12} {errors:>13}");
    }
    fault_table(
        label,
        "draughts",
        &FaultKind::DRAUGHTS,
        n,
        cases,
        |i, k, p, seed| faults::draughts::inject(&games[i], k, p, seed),
    );
}

/// Both tables for a xiangqi corpus (`label` names it in every line).
fn xiangqi_tables(
    label: &str,
    games: &[Vec<xiangqi::Move>],
    limit: usize,
    cases: usize,
    clean: bool,
) {
    let n = games.len().min(limit);
    clean_table(
        label,
        if clean { n } else { 0 },
        |i, profile, habits| {
            let s = simulate_xiangqi_with(&games[i], profile, habits, i as u64);
            (
                replay(&s, "xiangqi", profile.human, (i, profile)),
                games[i].iter().map(ToString::to_string).collect(),
            )
        },
        |i, profile, habits| simulate_xiangqi_with(&games[i], profile, habits, i as u64).lines,
    );
    fault_table(
        label,
        "xiangqi",
        &FaultKind::XIANGQI,
        n,
        cases,
        |i, k, p, seed| faults::xiangqi::inject(&games[i], k, p, seed),
    );
}

fn read_draughts(file: &str) -> Vec<Vec<draughts::Move>> {
    let text = std::fs::read_to_string(data(file)).unwrap();
    draughts::read_pdn(&text)
        .unwrap()
        .into_iter()
        .map(|g| g.moves)
        .collect()
}

fn read_xiangqi(files: &[&str]) -> Vec<Vec<xiangqi::Move>> {
    let mut games = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(data(file)).unwrap();
        games.extend(read_xiangqi_games(&text).unwrap());
    }
    games
}

fn main() {
    let limit: usize = common::env_or("BENCH_GAMES", usize::MAX);
    let cases: usize = common::env_or("BENCH_CASES", 200);
    let only: String = common::env_or("BENCH_GAME", String::new());
    let corpus: String = common::env_or("BENCH_CORPUS", String::new());
    let clean = std::env::var_os("BENCH_KIND").is_none();
    let made = corpus.is_empty() || corpus == "made";
    let real = corpus.is_empty() || corpus == "real";
    let draughts = only.is_empty() || only == "draughts";
    let xiangqi = only.is_empty() || only == "xiangqi";

    if made && draughts {
        let games = read_draughts("english-draughts.pdn");
        draughts_tables("draughts", &games, limit, cases, clean);
    }
    if made && xiangqi {
        let games = read_xiangqi(&["xiangqi-selfplay.pgn", "xiangqi-random.pgn"]);
        xiangqi_tables("xiangqi", &games, limit, cases, clean);
    }
    if real && draughts {
        let games = read_draughts("english-draughts-acf.pdn");
        draughts_tables("draughts ACF", &games, limit, cases, clean);
    }
    if real && xiangqi {
        let games = read_xiangqi(&["xiangqi-wxf-hu.pgn", "xiangqi-wxf-liu.pgn"]);
        xiangqi_tables("xiangqi WXF", &games, limit, cases, clean);
    }
}
