//! `boardcast hub`: one event-wide view over many bridges.
//!
//! An Olympiad has one bridge (`boardcast run`) per hall or per row of
//! tables, all publishing to one broker cluster. The hub subscribes to the
//! cluster and gathers every board of every bridge: it serves the live
//! page and the arbiter view ([`crate::web`]), writes the LiveChess-layout
//! PGN folder ([`crate::sink::round`]), and, with `[broadcast] delay`,
//! keeps the public outputs that long behind the live game
//! ([`crate::delay`]). It reads only what the bridges publish (see
//! [`model`]); it needs none of their configuration files.
//!
//! Shape: [`model::HubModel`] is the pure core (messages and wall time in,
//! [`model::Output`]s out; `agree` brings its folded games in line with
//! the bridges' retained states); [`run`] is the I/O edge: one MQTT connection
//! (failing over along `[mqtt] url`; QoS 0, the retained states making up
//! for what it misses while away), the web server and the folder writer
//! task.

mod acks;
mod agree;
pub mod config;
pub mod liveness;
pub mod model;

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rumqttc::{AsyncClient, ConnectionError, Event as MqttEvent, Incoming, MqttOptions, QoS};
use tracing::{info, warn};

use self::config::HubConfig;
use self::liveness::{Change, Liveness};
use self::model::{HubModel, Output};
use crate::backoff::Backoff;
use crate::control::Request;
use crate::mqtt::link::{self, Health};
use crate::sink::ledger::GameKey;
use crate::sink::round::Round;
use crate::tournament::{Pairings, Player};
use crate::web::{Audience, WebServer};

/// Why the hub could not start.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// The live page's address could not be bound.
    #[error("live page on {addr}: {error}")]
    Web {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        error: std::io::Error,
    },
    /// The MQTT settings cannot be used.
    #[error("mqtt: {0}")]
    Mqtt(crate::mqtt::MqttError),
    /// The PGN folder could not be set up.
    #[error("pgn folder: {0}")]
    Folder(crate::tournament::PairingsError),
}

impl From<crate::tournament::PairingsError> for HubError {
    fn from(e: crate::tournament::PairingsError) -> Self {
        HubError::Folder(e)
    }
}

impl From<crate::mqtt::MqttError> for HubError {
    fn from(e: crate::mqtt::MqttError) -> Self {
        HubError::Mqtt(e)
    }
}

/// What the hub serves, for tests and for `main` to print.
#[derive(Debug)]
pub struct Running {
    /// The live page's address, when one is served.
    pub web: Option<std::net::SocketAddr>,
}

/// The outputs' ends: the page's two views and the folder.
#[derive(Debug)]
struct Sinks {
    web: Option<WebServer>,
    /// Board id to its index in both views.
    index: HashMap<String, usize>,
    round: Arc<Round>,
    /// Where the page's commands for the bridges' boards go (to be signed
    /// and published), when the hub has the operator secret.
    outgoing: Option<tokio::sync::mpsc::Sender<(String, Request)>>,
    /// The commands sent for the bridges, waiting for their answer.
    awaiting: acks::Awaiting,
}

impl Sinks {
    fn apply(&mut self, outputs: Vec<Output>) {
        for o in outputs {
            match o {
                Output::NewBoard(id) => {
                    if let Some(w) = &self.web {
                        let i = w.public.add_board(&id);
                        w.arbiter.add_board(&id);
                        if let Some(out) = &self.outgoing {
                            w.router().add(&id, forward(&id, out.clone()));
                        }
                        self.index.insert(id, i);
                    }
                }
                Output::Bridge { name, status } => {
                    if let Some(w) = &self.web {
                        w.public.bridge(&name, &status);
                        w.arbiter.bridge(&name, &status);
                    }
                }
                Output::ArbiterState(id, json) => {
                    if let (Some(w), Some(&i)) = (&self.web, self.index.get(&id)) {
                        w.arbiter_feed(i).state(&json);
                    }
                }
                Output::PublicState(id, json) => {
                    if let (Some(w), Some(&i)) = (&self.web, self.index.get(&id)) {
                        w.feed(i).state(&json);
                    }
                }
                Output::ArbiterEvent(e) => {
                    if let (Some(w), Some(&i)) = (&self.web, self.index.get(&e.board)) {
                        w.arbiter_feed(i).event(&e);
                    }
                }
                Output::PublicEvent(e) => {
                    if let (Some(w), Some(&i)) = (&self.web, self.index.get(&e.board)) {
                        w.feed(i).event(&e);
                    }
                }
                Output::Folder {
                    board,
                    round,
                    number,
                    white,
                    black,
                    record,
                } => {
                    if white.is_some() || black.is_some() {
                        let unknown = || Player {
                            name: "?".into(),
                            ..Player::default()
                        };
                        let (w, b) = (white.unwrap_or_else(unknown), black.unwrap_or_else(unknown));
                        if self
                            .round
                            .pairing_in(round, number)
                            .is_none_or(|p| p.white != w || p.black != b)
                        {
                            self.round.set_players_in(round, number, w, b);
                        }
                    }
                    let key = GameKey::of(&board, &record);
                    self.round.update(round, number, &key, &record);
                }
                Output::LiveGame {
                    board,
                    round,
                    number,
                    record,
                } => {
                    let key = GameKey::of(&board, &record);
                    self.round.update_live(round, number, &key, &record);
                }
            }
        }
    }
}

/// A board's command queue on the hub: what arrives goes, with the board's
/// id, to the MQTT task, which signs and publishes it.
fn forward(
    id: &str,
    out: tokio::sync::mpsc::Sender<(String, Request)>,
) -> tokio::sync::mpsc::Sender<Request> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Request>(16);
    let id = id.to_string();
    tokio::spawn(async move {
        while let Some(r) = rx.recv().await {
            if out.send((id.clone(), r)).await.is_err() {
                break;
            }
        }
    });
    tx
}

/// Runs the hub until `shutdown` resolves; `started` is told what it
/// serves once the page is up. Then the folder is written a last time.
pub async fn run(
    cfg: HubConfig,
    shutdown: impl Future<Output = ()>,
    started: Option<tokio::sync::oneshot::Sender<Running>>,
) -> Result<(), HubError> {
    let web = match cfg.web {
        Some(addr) => {
            let audience = Audience::new(
                cfg.delay_ms,
                cfg.web_login.password.as_deref(),
                cfg.control.secret.as_ref().map(|s| s.as_str()),
                cfg.web_login.session,
            )
            .with_public_alerts(cfg.public_alerts);
            Some(
                WebServer::start_for(addr, &[], audience, cfg.web_limits)
                    .await
                    .map_err(|error| HubError::Web { addr, error })?,
            )
        }
        None => None,
    };
    let round = Round::new(
        cfg.event.clone(),
        Pairings::default(),
        None,
        cfg.pgn_dir.clone(),
    )?;
    // The round's results kept across a restart of the hub.
    round.keep_ledger_in(&cfg.state_dir);
    let (stop_writer, writer_stopped) = tokio::sync::oneshot::channel::<()>();
    let writer = tokio::spawn(Arc::clone(&round).run_writer(async {
        let _ = writer_stopped.await;
    }));
    if let Some(tx) = started {
        let _ = tx.send(Running {
            web: web.as_ref().map(|w| w.addr),
        });
    }
    // The desk: for every board of every bridge, its actions sent to the
    // bridges as signed commands (so only with the operator secret).
    let (outgoing_tx, mut outgoing) = tokio::sync::mpsc::channel::<(String, Request)>(256);
    let outgoing_tx = match (&web, &cfg.control.secret) {
        (Some(w), Some(_)) => {
            w.set_desk(Arc::new(crate::desk::live::Desk::new(
                crate::desk::store::Store::new(Some(&cfg.state_dir)),
                Arc::clone(&round),
                None,
                cfg.web_login.desk_password.clone(),
            )));
            info!(url = %format!("http://{}/desk", w.addr), "hub: the operator's desk for every bridge's boards");
            Some(outgoing_tx)
        }
        (Some(_), None) => {
            warn!(
                "hub: no operator secret ([control] secret): no desk, the bridges would refuse its commands"
            );
            None
        }
        _ => None,
    };
    let mut sinks = Sinks {
        web,
        index: HashMap::new(),
        round,
        outgoing: outgoing_tx,
        awaiting: acks::Awaiting::default(),
    };
    let journals = (cfg.delay_ms > 0).then(|| cfg.state_dir.clone());
    let mut model = HubModel::new(&cfg.mqtt.prefix, cfg.delay_ms)
        .with_journals(journals)
        .with_public_alerts(cfg.public_alerts);
    let result = follow(&cfg, &mut model, &mut sinks, &mut outgoing, shutdown).await;
    let _ = stop_writer.send(());
    let _ = writer.await;
    info!("hub stopped");
    result
}

/// The MQTT connection: subscribes at every connection, feeds the model
/// (through the bridges' liveness), and releases delayed events and
/// judges silent bridges on time, until `shutdown`.
async fn follow(
    cfg: &HubConfig,
    model: &mut HubModel,
    sinks: &mut Sinks,
    outgoing: &mut tokio::sync::mpsc::Receiver<(String, Request)>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), HubError> {
    let mut link = HubLink::open(cfg)?;
    let mut liveness = Liveness::new(&cfg.mqtt.prefix, cfg.silence.as_millis() as u64);
    let mut filters = model.filters();
    filters.push(liveness.filter());
    // The bridges' answers to the desk's commands.
    let acks = format!("{}/bridge/+/ack", cfg.mqtt.prefix);
    if sinks.outgoing.is_some() {
        filters.push(acks.clone());
    }
    tokio::pin!(shutdown);
    loop {
        let due = next_wakeup(model, &liveness, &link);
        let polled = tokio::select! {
            biased;
            _ = &mut shutdown => break,
            _ = sleep_until_opt(due) => {
                on_due(cfg, model, sinks, &mut liveness, &link);
                continue;
            }
            Some((board, request)) = outgoing.recv() => {
                match model.shared_id(&board, crate::wall::unix_ms()) {
                    None => publish_command(cfg, &link.client, &board, request, &mut sinks.awaiting),
                    Some(bridges) => refuse_shared(&board, request, &bridges),
                }
                continue;
            }
            r = link.eventloop.poll() => r,
        };
        match polled {
            Ok(MqttEvent::Incoming(Incoming::ConnAck(_))) => {
                link.on_connack();
                liveness.resume(crate::wall::unix_ms());
                subscribe(&link.client, &filters);
            }
            Ok(MqttEvent::Incoming(Incoming::Publish(p))) => {
                on_publish(cfg, model, sinks, &mut liveness, &p);
            }
            Ok(_) => {}
            Err(e) => {
                let wait = link.on_error(cfg, &e);
                tokio::select! {
                    _ = &mut shutdown => break,
                    _ = tokio::time::sleep(wait) => {}
                }
            }
        }
    }
    let _ = link.client.try_disconnect();
    Ok(())
}

/// When the hub must wake next (as a tokio instant): the model's next
/// delayed release, or the next silence to judge while the hub itself
/// hears the broker.
fn next_wakeup(
    model: &HubModel,
    liveness: &Liveness,
    link: &HubLink,
) -> Option<tokio::time::Instant> {
    let now = crate::wall::unix_ms();
    // Silence is judged only while the hub itself hears the broker.
    let judged = link
        .health
        .is_connected()
        .then(|| liveness.next_due())
        .flatten();
    [model.next_due(), judged]
        .into_iter()
        .flatten()
        .min()
        .map(|wall| tokio::time::Instant::now() + Duration::from_millis(wall.saturating_sub(now)))
}

/// Time is up: releases the model's delayed events and judges silent
/// bridges (only while the hub hears the broker).
fn on_due(
    cfg: &HubConfig,
    model: &mut HubModel,
    sinks: &mut Sinks,
    liveness: &mut Liveness,
    link: &HubLink,
) {
    let now = crate::wall::unix_ms();
    sinks.apply(model.tick(now));
    if link.health.is_connected() {
        let changes = liveness.tick(now);
        apply_liveness(cfg, model, sinks, changes, now);
    }
}

/// Subscribes to every filter again (at each connection: the session is
/// clean).
fn subscribe(client: &AsyncClient, filters: &[String]) {
    for f in filters {
        if client.try_subscribe(f.clone(), QoS::AtMostOnce).is_err() {
            warn!(filter = %f, "hub: could not subscribe");
        }
    }
}

/// A message from the broker: a bridge's acknowledgement goes to the desk
/// (when the hub sends commands); anything else feeds the bridges'
/// liveness and, when it passes, the model.
fn on_publish(
    cfg: &HubConfig,
    model: &mut HubModel,
    sinks: &mut Sinks,
    liveness: &mut Liveness,
    p: &rumqttc::Publish,
) {
    if sinks.outgoing.is_some() && is_ack(&cfg.mqtt.prefix, &p.topic) {
        if let Ok(ack) = serde_json::from_slice(&p.payload) {
            sinks.awaiting.answer(ack);
        }
        return;
    }
    let now = crate::wall::unix_ms();
    let (pass, change) = liveness.on_message(&p.topic, &p.payload, p.retain, now);
    if pass {
        sinks.apply(model.on_message(&p.topic, &p.payload, now));
    }
    apply_liveness(cfg, model, sinks, change.into_iter().collect(), now);
}

/// Whether `topic` is a bridge's acknowledgement topic
/// (`{prefix}/bridge/{name}/ack`).
fn is_ack(prefix: &str, topic: &str) -> bool {
    topic
        .strip_prefix(prefix)
        .and_then(|t| t.strip_prefix("/bridge/"))
        .and_then(|t| t.strip_suffix("/ack"))
        .is_some_and(|name| !name.is_empty() && !name.contains('/'))
}

/// A desk command for a board id two bridges publish is not sent (both
/// would obey it): the desk is answered why.
fn refuse_shared(board: &str, mut request: Request, bridges: &[String]) {
    warn!(%board, ?bridges, command = request.command.name(), "hub: desk command not sent: two bridges publish this board id");
    let ack = crate::control::Ack {
        nonce: request.nonce.clone(),
        board: board.to_string(),
        accepted: false,
        changed: false,
        message: format!(
            "not sent: bridges {} both publish a board `{board}`, and both would obey; give one another id ([[board]] id)",
            bridges.join(" and ")
        ),
        code: Some("shared_id".into()),
    };
    request.answer(ack);
}

/// Signs the desk's `request` for `board` with the operator secret and
/// publishes it on the board's command topic, as `boardcast command` does
/// (the bridge that has the board obeys and acknowledges it). Its answer,
/// the bridge's acknowledgement naming the nonce, is waited for in
/// `awaiting`.
fn publish_command(
    cfg: &HubConfig,
    client: &AsyncClient,
    board: &str,
    request: Request,
    awaiting: &mut acks::Awaiting,
) {
    let Some(secret) = &cfg.control.secret else {
        return;
    };
    let topic = format!("{}/board/{board}/command", cfg.mqtt.prefix);
    let nonce = request
        .nonce
        .clone()
        .unwrap_or_else(crate::control::new_nonce);
    // The hub's desk names itself, so the board's correction says who.
    let by = request.by.as_ref().map(|b| format!("hub {b}"));
    let payload = crate::control::sign_by(
        secret,
        &topic,
        &request.command,
        crate::wall::unix_ms(),
        &nonce,
        by.as_deref(),
    );
    if client
        .try_publish(&topic, QoS::AtLeastOnce, false, payload)
        .is_err()
    {
        warn!(%board, "hub: the desk's command could not be handed to the broker");
    } else {
        info!(%board, command = request.command.name(), "hub: desk command sent to its bridge");
        awaiting.sent(&nonce, board, request.reply);
    }
}

/// Shows the bridges' liveness changes: a silent bridge as offline (as its
/// last will would have), a bridge heard again as online.
fn apply_liveness(
    cfg: &HubConfig,
    model: &mut HubModel,
    sinks: &mut Sinks,
    changes: Vec<Change>,
    now: u64,
) {
    for change in changes {
        let (name, status) = match &change {
            Change::Silent { name, silent_ms } => {
                warn!(bridge = ?name, silent_s = silent_ms / 1000, "hub: no heartbeat from the bridge: showing it offline (not heard from)");
                (name, "offline")
            }
            Change::Heard { name } => {
                info!(bridge = ?name, "hub: the bridge is heard again");
                (name, "online")
            }
        };
        let topic = format!("{}/bridge/{name}/status", cfg.mqtt.prefix);
        sinks.apply(model.on_message(&topic, status.as_bytes(), now));
    }
}

/// The hub's broker connection: the client, the nodes to fail over
/// between, and the link's history.
struct HubLink {
    brokers: Vec<(String, u16)>,
    current: usize,
    client: AsyncClient,
    eventloop: rumqttc::EventLoop,
    backoff: Backoff,
    health: Health,
    /// This process's client id.
    client_id: String,
    /// A TLS file could not be read at the last failover (logged once).
    tls_unreadable: bool,
}

impl HubLink {
    fn open(cfg: &HubConfig) -> Result<HubLink, HubError> {
        let brokers = cfg.mqtt.brokers();
        // Design: a random part, so that two hubs of one configuration (a
        // standby, a restart while the old process lingers) do not knock
        // each other off the broker; the clean session needs no stable id.
        let client_id = link::unique_client_id(&cfg.mqtt.client_id);
        let (client, eventloop) =
            AsyncClient::new(Self::options(cfg, &brokers[0], &client_id)?, 64);
        info!(host = %brokers[0].0, port = brokers[0].1, %client_id, "hub: connecting to the broker");
        Ok(HubLink {
            brokers,
            current: 0,
            client,
            eventloop,
            backoff: Backoff::new(cfg.mqtt.reconnect),
            health: Health::default(),
            client_id,
            tls_unreadable: false,
        })
    }

    /// The options for one node.
    fn options(
        cfg: &HubConfig,
        broker: &(String, u16),
        client_id: &str,
    ) -> Result<MqttOptions, HubError> {
        let node = cfg.mqtt.at(broker);
        // Design: a clean session and QoS 0 subscriptions. A broker
        // cluster delivers QoS 0 along its plain routes, while QoS 1 goes
        // through its replicated store, which can stall for a long time
        // after a node dies (seen with NATS: a hub connected to a live node
        // got nothing more). The hub loses nothing that matters by it: the
        // retained states carry every game whole and are read again at
        // every connection; only the clock comments of moves made while
        // the hub itself was away are missing from its PGN.
        crate::mqtt::connection_options(&node, client_id.to_string()).map_err(Into::into)
    }

    fn on_connack(&mut self) {
        let failures = self.health.connected(tokio::time::Instant::now());
        let (host, port) = &self.brokers[self.current];
        info!(%host, port, failed_attempts = failures, "hub: connected");
    }

    /// A failed connection: logged as the link's history warrants, the
    /// next node chosen; returns how long to wait before trying it. Never
    /// fatal: a TLS file that can no longer be read keeps the TLS settings
    /// read before ([`crate::mqtt::reconnect_options`]).
    fn on_error(&mut self, cfg: &HubConfig, e: &ConnectionError) -> Duration {
        let refused = matches!(e, ConnectionError::ConnectionRefused(_));
        let (reset, report) = self.health.failed(tokio::time::Instant::now(), refused);
        if reset {
            self.backoff.reset();
        }
        report.log("hub", &self.client_id, e, self.health.failures());
        if self.brokers.len() > 1 {
            self.current = (self.current + 1) % self.brokers.len();
            self.eventloop.mqtt_options = crate::mqtt::reconnect_options(
                &cfg.mqtt.at(&self.brokers[self.current]),
                self.client_id.clone(),
                &self.eventloop.mqtt_options,
                &mut self.tls_unreadable,
                "hub",
            );
            let (host, port) = &self.brokers[self.current];
            info!(%host, port, "hub: trying the next broker");
        }
        self.backoff.next_delay()
    }
}

async fn sleep_until_opt(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
