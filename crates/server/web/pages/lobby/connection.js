// The lobby's one WebSocket (/api/lobby): the Lobby view opens it, and a logged-in reader keeps
// it open on every view. A seek lives as long as the connection that made it: when the
// connection drops, the server takes the seek away, and the page says so instead of quietly
// making it again.

class LobbyConnection {
  constructor() {
    this.reasons = new Set();
    this.ws = null;
    this.delay = 1000;
    this.timer = null;
    this.listeners = new Set();
    this.seeks = new Map();
    /** The ids of this connection's own seeks (the server says `seeking` to their maker). */
    this.mine = new Set();
    /** Those of them still waiting for an opponent, as far as this tab knows: a seek that
     * vanishes with the connection (the server may say `unseek` first) is still counted. */
    this.waiting = new Set();
    this.you = null;
    this.open = false;
    window.addEventListener('online', () => this.reconnectNow());
    // A page left with Back or a typed address may stay alive in the back/forward cache with
    // its socket, and its seeks would stay open for a maker who is gone: whoever accepted one
    // got a game against nobody (issue 36). Put away, the page closes the socket (its seeks
    // go); brought back, it connects again.
    window.addEventListener('pagehide', () => this.close());
    window.addEventListener('pageshow', (e) => { if (e.persisted) this.reconnectNow(); });
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.reconnectNow();
    });
  }

  /** Keeps the connection open for `reason` (the lobby view, a logged-in reader). */
  want(reason) {
    this.reasons.add(reason);
    if (!this.ws) this.connect();
  }

  release(reason) {
    this.reasons.delete(reason);
    if (this.reasons.size === 0) this.close();
  }

  /** Connects anew (the session changed: the server reads who is there on connecting). */
  restart() {
    this.close();
    if (this.reasons.size) this.connect();
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(msg) {
    for (const fn of [...this.listeners]) fn(msg);
  }

  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  connect() {
    clearTimeout(this.timer);
    if (this.reasons.size === 0) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try {
      ws = new WebSocket(`${proto}//${location.host}/api/lobby`);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    this.lastHeard = Date.now();
    ws.onopen = () => {
      ws.send('{"type":"ping"}');
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      this.lastHeard = Date.now();
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === 'pong') return;
      if (msg.type === 'lobby') {
        this.delay = 1000;
        this.open = true;
        this.you = msg.you || null;
        this.seeks = new Map((msg.seeks || []).map((s) => [s.id, s]));
      } else if (msg.type === 'seeking') {
        this.mine.add(msg.id);
        if (this.seeks.has(msg.id)) this.waiting.add(msg.id);
      } else if (msg.type === 'seek' && msg.seek) {
        this.seeks.set(msg.seek.id, msg.seek);
        if (this.mine.has(msg.seek.id)) this.waiting.add(msg.seek.id);
      } else if (msg.type === 'unseek') {
        this.seeks.delete(msg.id);
      } else if (msg.type === 'started') {
        // One of them was accepted; leaving the lobby for the game withdraws the others.
        this.waiting.clear();
      }
      this.emit(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.dropped();
      this.retry();
    };
    clearInterval(this.pinger);
    this.pinger = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (Date.now() - this.lastHeard > 60000) { ws.close(); return; }
      ws.send('{"type":"ping"}');
    }, 25000);
  }

  /** Withdraws this tab's seek `id`. */
  cancel(id) {
    this.waiting.delete(id);
    this.send({ type: 'cancel', id });
  }

  /** Whether `seek` was made by this tab. */
  isMine(seek) {
    return Boolean(seek.mine) || this.mine.has(seek.id);
  }

  /** The connection is gone, and with it this tab's seeks. */
  dropped() {
    clearInterval(this.pinger);
    const hadSeek = this.waiting.size > 0;
    this.ws = null;
    this.open = false;
    this.seeks = new Map();
    this.mine = new Set();
    this.waiting = new Set();
    this.emit({ type: 'closed', hadSeek });
  }

  retry() {
    if (this.reasons.size === 0) return;
    clearTimeout(this.timer);
    // Backoff with a little jitter, so that many tabs do not come back all at once.
    const wait = this.delay * (0.8 + Math.random() * 0.4);
    this.timer = setTimeout(() => this.connect(), wait);
    this.delay = Math.min(this.delay * 2, 30000);
  }

  reconnectNow() {
    if (this.reasons.size === 0 || this.ws) return;
    this.delay = 1000;
    this.connect();
  }

  close() {
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    const ws = this.ws;
    if (ws) {
      this.dropped();
      ws.close();
    }
  }
}

export const lobby = new LobbyConnection();
