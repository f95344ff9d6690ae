//! Several instances, one lobby: what the others say (seeks, messages for players) heard over
//! the bus, this instance's seeks told again every [`ALIVE_EVERY`], the seeks of an instance
//! gone quiet dropped.

use super::*;

impl Lobby {
    /// What another instance's lobby said (crate::store::Changed::Lobby).
    pub fn hear(&self, payload: &str) {
        let Some((from, m)) = BusMessage::parse(payload) else {
            return;
        };
        if from == self.me() {
            return;
        }
        match m {
            BusMessage::Open { seek, conn } => self.remote_seek(seek, &from, conn),
            BusMessage::Alive { seeks } => {
                for (seek, conn) in seeks {
                    self.remote_seek(seek, &from, conn);
                }
            }
            BusMessage::Gone { id } => self.drop_seek(&id),
            BusMessage::Tell { name, text } => self.tell_here(&name, &Arc::from(text)),
            BusMessage::TellConn {
                instance,
                conn,
                text,
            } => {
                if instance == self.me() {
                    self.tell_conn_here(conn, &Arc::from(text));
                }
            }
            BusMessage::Hello => self.say_alive(),
        }
    }

    fn remote_seek(&self, seek: Seek, instance: &str, conn: u64) {
        let mut s = self.lock();
        if let Some(h) = s.seeks.get_mut(&seek.id) {
            h.seen = Instant::now();
            return;
        }
        if s.seeks.len() >= MAX_SEEKS {
            return;
        }
        s.seeks.insert(
            seek.id.clone(),
            Held {
                seek: seek.clone(),
                owner: Owner {
                    instance: instance.to_string(),
                    conn,
                },
                seen: Instant::now(),
                opened: Instant::now(),
                client: None,
            },
        );
        drop(s);
        self.announce(&ServerMessage::Seek { seek });
    }

    /// Tells the other instances every seek this one holds.
    fn say_alive(&self) {
        let mine: Vec<(Seek, u64)> = {
            let s = self.lock();
            s.seeks
                .values()
                .filter(|h| h.owner.instance == self.me())
                .map(|h| (h.seek.clone(), h.owner.conn))
                .collect()
        };
        for chunk in mine.chunks(bus::SEEKS_PER_MESSAGE) {
            self.publish(BusMessage::Alive {
                seeks: chunk.to_vec(),
            });
        }
    }

    /// Drops other instances' seeks they stopped saying they hold (the instance died).
    fn sweep(&self) {
        let (stale, expired): (Vec<String>, Vec<String>) = {
            let s = self.lock();
            let stale = s
                .seeks
                .iter()
                .filter(|(_, h)| {
                    h.owner.instance != self.me() && h.seen.elapsed() > ALIVE_EVERY * 3
                })
                .map(|(id, _)| id.clone())
                .collect();
            let expired = s
                .seeks
                .iter()
                .filter(|(_, h)| h.owner.instance == self.me() && h.opened.elapsed() > SEEK_TTL)
                .map(|(id, _)| id.clone())
                .collect();
            (stale, expired)
        };
        for id in stale {
            self.drop_seek(&id);
        }
        self.expire_seeks(expired);
    }

    /// Takes this instance's seeks `ids` away as their maker's leaving would: here, on the
    /// other instances, and in the database (so that nobody accepts them afterwards).
    pub(super) fn expire_seeks(&self, ids: Vec<String>) {
        for id in ids {
            if self.lock().seeks.remove(&id).is_none() {
                continue;
            }
            self.announce(&ServerMessage::Unseek { id: id.clone() });
            self.publish(BusMessage::Gone { id: id.clone() });
            let store = self.store.clone();
            if tokio::runtime::Handle::try_current().is_ok() {
                tokio::task::spawn_blocking(move || {
                    let _ = store.account_op(AccountOp::TakeSeek { id, at: now_ms() });
                });
            }
        }
    }

    /// What the lobby does in the background until it is dropped: says which seeks this
    /// instance holds, forgets those of instances gone quiet, and drops challenges past
    /// their time. A new instance asks the others for their seeks at once.
    pub fn start(self: &Arc<Self>, rt: &tokio::runtime::Handle) {
        if self.store.is_shared() {
            let (tx, mut rx) = mpsc::unbounded_channel::<String>();
            if self.outbox.set(tx).is_ok() {
                let store = self.store.clone();
                rt.spawn(async move {
                    while let Some(text) = rx.recv().await {
                        let store = store.clone();
                        let sent = tokio::task::spawn_blocking(move || store.publish(&text)).await;
                        if let Ok(Err(e)) = sent {
                            tracing::warn!("cannot tell the other instances' lobbies: {e}");
                        }
                    }
                });
            }
        }
        let me = Arc::downgrade(self);
        rt.spawn(async move {
            if let Some(l) = me.upgrade() {
                l.publish(BusMessage::Hello);
            }
            let mut tick = tokio::time::interval(ALIVE_EVERY);
            loop {
                tick.tick().await;
                let Some(l) = me.upgrade() else { return };
                l.say_alive();
                l.sweep();
                l.expire().await;
            }
        });
    }

    /// The connection to the other instances was lost and is back: what they said meanwhile
    /// is gone, so they say it again.
    pub fn missed(&self) {
        self.publish(BusMessage::Hello);
    }
}

impl crate::round::notify::Listener for Lobby {
    fn your_move(&self, player: &str, game: &str, opponent: Option<&str>) {
        self.tell(
            player,
            &ServerMessage::YourMove {
                game: game.to_string(),
                opponent: opponent.map(str::to_string),
            },
        );
    }

    fn game_started(&self, player: &str, game: &str) {
        let game = game.to_string();
        self.tell(player, &ServerMessage::GameStart { game });
    }

    fn game_finished(&self, player: &str, game: &str) {
        let game = game.to_string();
        self.tell(player, &ServerMessage::GameFinish { game });
    }

    fn heard_from_others(&self, payload: &str) {
        self.hear(payload);
    }

    fn missed_others(&self) {
        self.missed();
    }
}
