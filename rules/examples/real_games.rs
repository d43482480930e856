//! Writes the bundled real-game corpora (`rules/tests/data/`) from their
//! MIT-licensed sources (see `rules/tests/data/README.md`):
//!
//! - `english-draughts-acf.pdn`: American Checker Federation games from
//!   `EricCJoyce/Datasets`, file `Checkers/ACF.txt` (a line each,
//!   `moves<TAB>result`, squares 0..31 from the first mover's side);
//! - `xiangqi-wxf-hu.pgn`, `xiangqi-wxf-liu.pgn`: World Xiangqi Federation master games from
//!   `maksimKorzh/wukong-xiangqi`, files
//!   `xqdb/xqdb/Hu_Ronghua_1391_UCI_games.pgn.zip` and
//!   `Liu_Dahua_1125_UCI_games.pgn.zip` (unzipped; moves `h2e2`, ranks 0..9
//!   from Red's back rank, the ICCS form), one bundled file per source
//!   file (each under 250 KB; a game in both is in the first).
//!
//! ```sh
//! cargo run --release -p boardcast-rules --example real_games -- \
//!     ACF.txt Hu_Ronghua_1391_UCI_games.pgn Liu_Dahua_1125_UCI_games.pgn \
//!     rules/tests/data [--all]
//! ```
//!
//! Why a Rust example and not a Python script: the files must be in the
//! repository's own corpus formats, read back by `boardcast_rules`'
//! readers; writing them with the crate's own writers (`write_pdn`,
//! `xiangqi::pgn::write`, WXF movetext) makes that true by construction,
//! and the crate's rules check every source move on the way. The
//! independent check (pydraughts, pyffish) is the system test
//! `real_games_oracle` in `cli/tests/`.
//!
//! What it does: reads every source game, drops repeated ones (the same
//! moves; the first occurrence kept: in both sources a few repeats carry
//! another result, event or player spelling), replays each with the crate's rules and skips (and
//! counts) the games with a move that cannot be played. From the rest it
//! takes a deterministic sample of `SAMPLE` games per game, in source
//! order: the longest games, the games with most king moves (draughts),
//! the games with most repeated positions, and the rest spread evenly over
//! the source. With `--all` it writes every playable game instead (files
//! `*-all.*`, to run the oracles over the whole source; not bundled).
//!
//! Results, kept as the sources give them: an ACF result is from the first
//! mover's (Black's) point of view, so `1-0` becomes PDN `2-0` (Black
//! wins), `0-1` becomes `0-2` and `1/2-1/2` becomes `1-1`. The WXF files
//! give no result: a game is written `*` unless its last position leaves
//! the side to move without a legal move (mate or stalemate, both a loss
//! in xiangqi), where the winner is written. Statistics go to stderr.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use boardcast_rules::draughts::{self, Outcome, PdnGame};
use boardcast_rules::xiangqi::pgn::{self, GameResult, Record};
use boardcast_rules::xiangqi::{self, notation::parse_iccs};

/// Games per bundled file.
const SAMPLE: usize = 300;
/// Of which the longest games.
const LONGEST: usize = 30;
/// Of which the games with most king moves (draughts).
const KINGS: usize = 30;
/// Of which the games with most repeated positions.
const REPEATS: usize = 30;

const ACF_EVENT: &str = "American Checker Federation archive";
const ACF_SOURCE: &str = "EricCJoyce/Datasets Checkers/ACF.txt";
const WXF_SOURCE: &str = "maksimKorzh/wukong-xiangqi xqdb/xqdb/";

/// A playable source game and what the sample is chosen by.
struct Candidate<G> {
    game: G,
    plies: usize,
    kings: usize,
    repeats: usize,
}

/// The PDN square (1..32) of an ACF square (0..31).
fn pdn_square(a: u32) -> u32 {
    4 * (a / 4) + (3 - a % 4) + 1
}

/// The most times any position occurs in a sequence of positions.
fn most_repeated<K: std::hash::Hash + Eq>(keys: impl Iterator<Item = K>) -> usize {
    let mut seen: HashMap<K, usize> = HashMap::new();
    for k in keys {
        *seen.entry(k).or_default() += 1;
    }
    seen.into_values().max().unwrap_or(0)
}

/// Indices of the sample among `n` candidates: the top of each ranking,
/// then even spread over the source; sorted (source order).
fn choose(n: usize, rankings: &[(usize, Vec<usize>)]) -> Vec<usize> {
    let mut picked: HashSet<usize> = HashSet::new();
    let want = SAMPLE.min(n);
    for (take, order) in rankings {
        let mut took = 0;
        for &i in order {
            if took == *take || picked.len() == want {
                break;
            }
            if picked.insert(i) {
                took += 1;
            }
        }
    }
    // Even spread: the k-th of the rest at k * n / rest, moving on past
    // games already taken.
    let rest = want - picked.len();
    for k in 0..rest {
        let mut i = k * n / rest;
        while picked.contains(&i) {
            i = (i + 1) % n;
        }
        picked.insert(i);
    }
    let mut out: Vec<usize> = picked.into_iter().collect();
    out.sort_unstable();
    out
}

/// Ranks candidates by `key`, largest first, earlier games first on ties.
fn ranked<G>(cands: &[Candidate<G>], key: impl Fn(&Candidate<G>) -> usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(key(&cands[i])), i));
    order
}

fn draughts_games(text: &str, stats: &mut String) -> Vec<Candidate<PdnGame>> {
    let (mut lines, mut repeated, mut skipped) = (0, 0, Vec::new());
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        let (moves, result) = line.split_once('\t').unwrap_or((line, ""));
        if !seen.insert(moves.trim().to_owned()) {
            repeated += 1;
            continue;
        }
        let outcome = match result.trim() {
            "1-0" => Outcome::Win(draughts::Color::Black),
            "0-1" => Outcome::Win(draughts::Color::White),
            "1/2-1/2" => Outcome::Draw,
            _ => Outcome::Unknown,
        };
        let mut game = PdnGame::new();
        game.set_tag("Event", ACF_EVENT);
        game.set_tag("Source", &format!("{ACF_SOURCE} line {}", n + 1));
        game.outcome = outcome;
        let mut pos = draughts::Position::start();
        let (mut kings, mut keys) = (0, vec![pos]);
        let mut bad = None;
        for (ply, token) in moves.split_whitespace().enumerate() {
            let squares: Option<Vec<String>> = token
                .split('-')
                .map(|s| s.parse::<u32>().ok().filter(|a| *a < 32))
                .map(|a| a.map(|a| pdn_square(a).to_string()))
                .collect();
            let Some(squares) = squares else {
                bad = Some(format!("ply {}: {token:?} is not a move", ply + 1));
                break;
            };
            match draughts::Move::parse(&squares.join("-"), &pos) {
                Ok(m) => {
                    kings += usize::from(pos.piece_at(m.from()).is_some_and(|p| p.is_king()));
                    pos.play(&m);
                    keys.push(pos);
                    game.moves.push(m);
                }
                Err(e) => {
                    bad = Some(format!("ply {} ({token}): {e}", ply + 1));
                    break;
                }
            }
        }
        if let Some(why) = bad {
            skipped.push(format!("line {}: {why}", n + 1));
            continue;
        }
        out.push(Candidate {
            plies: game.moves.len(),
            kings,
            repeats: most_repeated(keys.into_iter()),
            game,
        });
    }
    let _ = writeln!(
        stats,
        "draughts: {lines} lines, {repeated} repeating an earlier line, {} distinct, {} skipped (a move our rules cannot play), {} playable",
        lines - repeated,
        skipped.len(),
        out.len()
    );
    for s in skipped {
        let _ = writeln!(stats, "  skipped {s}");
    }
    out
}

/// A source record: its tags and its move tokens.
type SourceRecord = (Vec<(String, String)>, Vec<String>);

/// The records of a WXF source file.
fn wxf_records(text: &str) -> Vec<SourceRecord> {
    let mut out: Vec<SourceRecord> = Vec::new();
    let mut in_moves = true;
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(inner) = l.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            if in_moves {
                out.push((Vec::new(), Vec::new()));
                in_moves = false;
            }
            let (k, v) = inner.split_once(' ').unwrap_or((inner, ""));
            let v = v.trim().trim_matches('"').to_owned();
            out.last_mut().expect("a record").0.push((k.to_owned(), v));
        } else {
            in_moves = true;
            if out.is_empty() {
                out.push((Vec::new(), Vec::new()));
            }
            let moves = &mut out.last_mut().expect("a record").1;
            moves.extend(
                l.split_whitespace()
                    .filter(|t| !t.ends_with('.'))
                    .map(str::to_owned),
            );
        }
    }
    out
}

fn xiangqi_games(files: &[(&str, String)], stats: &mut String) -> Vec<Candidate<Record>> {
    let (mut records, mut repeated, mut skipped) = (0, 0, Vec::new());
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (name, text) in files {
        for (gi, (tags, tokens)) in wxf_records(text).into_iter().enumerate() {
            records += 1;
            let get = |k: &str| {
                tags.iter()
                    .find(|(t, _)| t == k)
                    .map_or("?", |(_, v)| v.as_str())
                    .to_owned()
            };
            let moves: Vec<String> = tokens
                .into_iter()
                .filter(|t| !["1-0", "0-1", "1/2-1/2", "*"].contains(&t.as_str()))
                .collect();
            if !seen.insert(moves.clone()) {
                repeated += 1;
                continue;
            }
            let start = xiangqi::Position::start();
            let mut pos = start.clone();
            let mut played = Vec::new();
            let mut keys = vec![pos.key()];
            let mut bad = None;
            for (ply, tok) in moves.iter().enumerate() {
                match parse_iccs(tok)
                    .map_err(|e| e.to_string())
                    .and_then(|m| pos.play(m).map(|_| m).map_err(|e| e.to_string()))
                {
                    Ok(m) => {
                        played.push(m);
                        keys.push(pos.key());
                    }
                    Err(e) => {
                        bad = Some(format!("ply {} ({tok}): {e}", ply + 1));
                        break;
                    }
                }
            }
            if let Some(why) = bad {
                skipped.push(format!("{name} game {}: {why}", gi + 1));
                continue;
            }
            let result = match pos.outcome() {
                xiangqi::Outcome::Checkmate { winner } | xiangqi::Outcome::Stalemate { winner } => {
                    GameResult::Win(winner)
                }
                xiangqi::Outcome::Ongoing => GameResult::Unfinished,
            };
            let file = name.rsplit('/').next().unwrap_or(name);
            let rec = Record {
                tags: vec![
                    ("Event".into(), get("Event")),
                    ("Red".into(), get("Red")),
                    ("Black".into(), get("Black")),
                    (
                        "Source".into(),
                        format!("{WXF_SOURCE}{file}.zip game {}", gi + 1),
                    ),
                ],
                start,
                moves: played,
                result,
            };
            out.push(Candidate {
                plies: rec.moves.len(),
                kings: 0,
                repeats: most_repeated(keys.into_iter()),
                game: rec,
            });
        }
    }
    let decided = out
        .iter()
        .filter(|c| c.game.result != GameResult::Unfinished)
        .count();
    let _ = writeln!(
        stats,
        "xiangqi: {records} records, {repeated} repeating an earlier one, {} distinct, {} skipped (a move our rules cannot play), {} playable ({decided} end in mate or stalemate)",
        records - repeated,
        skipped.len(),
        out.len()
    );
    for s in skipped {
        let _ = writeln!(stats, "  skipped {s}");
    }
    out
}

fn describe<G>(what: &str, all: &[Candidate<G>], picked: &[usize], stats: &mut String) {
    let plies: usize = picked.iter().map(|&i| all[i].plies).sum();
    let longest = picked.iter().map(|&i| all[i].plies).max().unwrap_or(0);
    let kings = picked.iter().filter(|&&i| all[i].kings > 0).count();
    let threefold = picked.iter().filter(|&&i| all[i].repeats >= 3).count();
    let kings = if what == "draughts" {
        format!(", {kings} with king moves")
    } else {
        String::new()
    };
    let _ = writeln!(
        stats,
        "{what}: {} games bundled, {plies} plies, longest {longest}{kings}, {threefold} with a position three times or more",
        picked.len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.iter().any(|a| a == "--all");
    let paths: Vec<&String> = args.iter().filter(|a| *a != "--all").collect();
    let [acf, hu, liu, out] = paths[..] else {
        eprintln!("usage: real_games ACF.txt HU.pgn LIU.pgn OUT_DIR [--all]");
        std::process::exit(2);
    };
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    let mut stats = String::new();

    let dr = draughts_games(&read(acf), &mut stats);
    let picked: Vec<usize> = if all {
        (0..dr.len()).collect()
    } else {
        choose(
            dr.len(),
            &[
                (LONGEST, ranked(&dr, |c| c.plies)),
                (KINGS, ranked(&dr, |c| c.kings)),
                (REPEATS, ranked(&dr, |c| c.repeats)),
            ],
        )
    };
    describe("draughts", &dr, &picked, &mut stats);
    let games: Vec<PdnGame> = picked.iter().map(|&i| dr[i].game.clone()).collect();
    let suffix = if all { "-all" } else { "" };
    let path = format!("{out}/english-draughts-acf{suffix}.pdn");
    std::fs::write(&path, draughts::write_pdn(&games)).expect("writing the PDN");

    let xq = xiangqi_games(&[(hu, read(hu)), (liu, read(liu))], &mut stats);
    let picked: Vec<usize> = if all {
        (0..xq.len()).collect()
    } else {
        choose(
            xq.len(),
            &[
                (LONGEST, ranked(&xq, |c| c.plies)),
                (REPEATS, ranked(&xq, |c| c.repeats)),
            ],
        )
    };
    describe("xiangqi", &xq, &picked, &mut stats);
    for (name, short) in [(hu, "hu"), (liu, "liu")] {
        let file = name.rsplit('/').next().unwrap_or(name);
        let text: String = picked
            .iter()
            .map(|&i| &xq[i].game)
            .filter(|g| {
                g.tags
                    .iter()
                    .any(|(k, v)| k == "Source" && v.contains(file))
            })
            .map(|g| pgn::write(g).expect("legal moves"))
            .collect();
        let path = format!("{out}/xiangqi-wxf-{short}{suffix}.pgn");
        std::fs::write(&path, text).expect("writing the PGN");
    }
    eprint!("{stats}");
}
