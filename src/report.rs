//! The round's report for the arbiter: every game of every board, its
//! result, and every error or action alert with its time, move number,
//! article, evidence span and the arbiter's decision. Each board's
//! [`crate::session::Session`] keeps its part ([`BoardReport`]); the
//! arbiter view (`/report`) and `boardcast report` put the parts together
//! ([`RoundReport`]) and print them as JSON or as a printable page.

use serde::{Deserialize, Serialize};

use crate::event::{AlertKind, Decision, Evidence, GameId, Millis, Severity, Side};

/// An error or action alert as the report lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlertEntry {
    /// Its `evidence.seq` (what a decision names); 0 for an alert no
    /// reading made (a game taken up after a restart shorter than its
    /// published record).
    pub seq: u64,
    /// When it was raised (daemon or capture milliseconds).
    pub t_ms: Millis,
    /// The board's game it belongs to (1 = the board's first; 0: before
    /// any game).
    pub game: usize,
    /// The plies published in that game when it was raised.
    pub ply: usize,
    /// The move number it was raised at (the move being played).
    pub move_number: usize,
    /// What happened.
    pub kind: AlertKind,
    /// Error or action.
    pub severity: Severity,
    /// Who is concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// The article of the game's rule book.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub law: Option<String>,
    /// The alert's sentence.
    pub message: String,
    /// The readings behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// The board was corrected since (a `cleared` alert withdrew it).
    #[serde(default)]
    pub withdrawn: bool,
    /// The arbiter's decision, when one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<DecisionEntry>,
}

/// An arbiter's decision as kept (the board's decisions journal, one JSON
/// object per line) and reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionEntry {
    /// The alert's `evidence.seq`.
    pub alert: u64,
    /// What was decided.
    pub decision: Decision,
    /// The arbiter's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// When (Unix milliseconds).
    pub at_unix_ms: u64,
    /// Where it came from (`command`: a signed command; `arbiter view`).
    #[serde(default)]
    pub by: String,
}

/// A game as the report lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameEntry {
    /// The board's game number (1 = the first).
    pub game: usize,
    /// The round the game belongs to.
    pub round: u32,
    /// White's (the first player's) name, from the pairings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    /// Black's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    /// The result (`*` while it goes on).
    pub result: String,
    /// Why it ended, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Plies played.
    pub plies: usize,
}

/// One board's part of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardReport {
    /// The board's id.
    pub board: String,
    /// Its number in the round.
    pub number: u32,
    /// The game played on it.
    pub game_type: GameId,
    /// The event's name, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Its games.
    pub games: Vec<GameEntry>,
    /// Its error and action alerts, in order.
    pub alerts: Vec<AlertEntry>,
}

/// The round's report: every board's part, by board number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundReport {
    /// The event's name.
    pub event: String,
    /// The round reported.
    pub round: u32,
    /// The boards, by number.
    pub boards: Vec<BoardReport>,
}

impl RoundReport {
    /// The report of `round` from the boards' parts: each board's games
    /// of that round, and the alerts of those games (alerts raised before
    /// a board's first game are kept with the round).
    pub fn of_round(event: &str, round: u32, parts: Vec<BoardReport>) -> RoundReport {
        let mut boards: Vec<BoardReport> = parts
            .into_iter()
            .map(|mut b| {
                let games: Vec<usize> = b
                    .games
                    .iter()
                    .filter(|g| g.round == round)
                    .map(|g| g.game)
                    .collect();
                b.games.retain(|g| g.round == round);
                b.alerts
                    .retain(|a| games.contains(&a.game) || (a.game == 0 && !games.is_empty()));
                b
            })
            .collect();
        boards.sort_by(|a, b| a.number.cmp(&b.number).then(a.board.cmp(&b.board)));
        RoundReport {
            event: event.to_string(),
            round,
            boards,
        }
    }

    /// The report as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialise")
    }

    /// Alerts still waiting for a decision.
    pub fn undecided(&self) -> usize {
        self.boards
            .iter()
            .flat_map(|b| &b.alerts)
            .filter(|a| a.decision.is_none())
            .count()
    }

    /// The report as a printable page (HTML, no script).
    pub fn to_html(&self) -> String {
        let mut h = String::new();
        h.push_str("<!doctype html><html lang=en><meta charset=utf-8>");
        h.push_str(&format!(
            "<title>{} round {}: arbiter's report</title>",
            esc(&self.event),
            self.round
        ));
        h.push_str(STYLE);
        h.push_str(&format!(
            "<h1>{}: round {}</h1><p class=meta>Arbiter's report: {} boards, {} games, {} error or action alerts ({} without a decision).</p>",
            esc(&self.event),
            self.round,
            self.boards.len(),
            self.boards.iter().map(|b| b.games.len()).sum::<usize>(),
            self.boards.iter().map(|b| b.alerts.len()).sum::<usize>(),
            self.undecided()
        ));
        h.push_str("<h2>Games</h2><table><thead><tr><th>Board</th><th>Game</th><th>White</th><th>Black</th><th>Result</th><th>Plies</th><th>Reason</th></tr></thead><tbody>");
        for b in &self.boards {
            for g in &b.games {
                h.push_str(&format!(
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=result>{}</td><td>{}</td><td>{}</td></tr>",
                    b.number,
                    g.game,
                    esc(g.white.as_deref().unwrap_or("?")),
                    esc(g.black.as_deref().unwrap_or("?")),
                    esc(&g.result),
                    g.plies,
                    esc(g.reason.as_deref().unwrap_or(""))
                ));
            }
        }
        h.push_str("</tbody></table><h2>Alerts</h2>");
        h.push_str("<table><thead><tr><th>Board</th><th>Time</th><th>Move</th><th>Kind</th><th>Side</th><th>Article</th><th>What</th><th>Evidence</th><th>Decision</th></tr></thead><tbody>");
        for b in &self.boards {
            for a in &b.alerts {
                let evidence = a.evidence.map_or(String::new(), |e| {
                    format!("{}–{}", clock_time(e.from_t_ms), clock_time(e.to_t_ms))
                });
                let decision = match &a.decision {
                    Some(d) => format!(
                        "<b>{}</b>{}",
                        d.decision.name(),
                        d.note
                            .as_deref()
                            .map(|n| format!(": {}", esc(n)))
                            .unwrap_or_default()
                    ),
                    None => "<i>none yet</i>".into(),
                };
                h.push_str(&format!(
                    "<tr class={}><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    match a.severity {
                        Severity::Error => "error",
                        _ => "action",
                    },
                    b.number,
                    clock_time(a.t_ms),
                    a.move_number,
                    serde_json::to_value(a.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
                    if a.withdrawn { " (corrected)" } else { "" },
                    a.side.map_or("", |s| s.name()),
                    esc(a.law.as_deref().unwrap_or("")),
                    esc(&a.message),
                    evidence,
                    decision
                ));
            }
        }
        h.push_str("</tbody></table></html>\n");
        h
    }
}

const STYLE: &str = "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#111}table{border-collapse:collapse;width:100%;margin-bottom:2rem}th,td{border:1px solid #999;padding:.25rem .4rem;text-align:left;vertical-align:top}th{background:#eee}tr.error td:nth-child(4){color:#a00;font-weight:600}.meta{color:#444}@media print{body{margin:0}}</style>";

/// `h:mm:ss` of a time in milliseconds.
fn clock_time(ms: Millis) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Text made safe for HTML.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Whether the report lists alerts of this kind (errors and actions).
pub fn reported(kind: AlertKind) -> bool {
    kind.severity() != Severity::Notice
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alert(seq: u64, game: usize) -> AlertEntry {
        AlertEntry {
            seq,
            t_ms: 3_723_000,
            game,
            ply: 20,
            move_number: 11,
            kind: AlertKind::IllegalMove,
            severity: Severity::Error,
            side: Some(Side::White),
            law: Some("7.5".into()),
            message: "White <b>played</b> Ke1-e3.".into(),
            evidence: None,
            withdrawn: false,
            decision: None,
        }
    }

    #[test]
    fn a_round_keeps_its_own_games_and_their_alerts_and_escapes_text() {
        let part = BoardReport {
            board: "7".into(),
            number: 7,
            game_type: GameId::Chess,
            event: None,
            games: vec![
                GameEntry {
                    game: 1,
                    round: 3,
                    white: Some("A".into()),
                    black: Some("B".into()),
                    result: "1-0".into(),
                    reason: None,
                    plies: 41,
                },
                GameEntry {
                    game: 2,
                    round: 4,
                    white: None,
                    black: None,
                    result: "*".into(),
                    reason: None,
                    plies: 3,
                },
            ],
            alerts: vec![alert(5, 1), alert(90, 2)],
        };
        let r = RoundReport::of_round("Open", 3, vec![part]);
        assert_eq!(r.boards[0].games.len(), 1);
        assert_eq!(
            r.boards[0].alerts.iter().map(|a| a.seq).collect::<Vec<_>>(),
            [5]
        );
        assert_eq!(r.undecided(), 1);
        let html = r.to_html();
        assert!(html.contains("1:02:03"), "{html}");
        assert!(html.contains("&lt;b&gt;played"), "{html}");
        assert!(!html.contains("<b>played"));
        let back: RoundReport = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(back, r);
    }
}
