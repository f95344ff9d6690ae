// A WebSocket to one of the server's paths that reconnects by itself: after a drop with a
// growing pause (0.5 s doubling to 5 s), and at once when the browser says it is back online.
// Pings find a dead connection the browser has not noticed: one that hears nothing for 35 s is
// closed and made again. The game's events (api.js) and the analysis engine (engine.js) build
// on it.

export class ReconnectingSocket {
  /** `path` on this host; `onMessage(msg)` gets each JSON message but pongs, `onStatus(up)`
   * each connection and loss. A subclass calls `connect()` once its own fields are set. */
  constructor(path, onMessage, onStatus) {
    this.path = path;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.closed = false;
    this.delay = 500;
    this.onOnline = () => this.reconnectNow();
    window.addEventListener('online', this.onOnline);
    // Leaving with Back or a typed address may keep the page alive in the back/forward
    // cache, and this socket with it: the server would go on counting a player who is gone
    // as here (issue 36). A page put away closes its socket; one brought back connects again.
    this.onHide = () => this.suspend();
    this.onShow = (e) => { if (e.persisted) this.reconnectNow(); };
    // Some phones hide a page without a `pageshow` to come back with: a page seen again
    // connects again if it is not connected.
    this.onVisible = () => { if (document.visibilityState === 'visible') this.reconnectNow(); };
    window.addEventListener('pagehide', this.onHide);
    window.addEventListener('pageshow', this.onShow);
    document.addEventListener('visibilitychange', this.onVisible);
  }

  /** Closes the connection without giving up on it (the page is being put away). */
  suspend() {
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
  }

  get open() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}${this.path}`);
    this.ws = ws;
    this.lastHeard = Date.now();
    ws.onopen = () => {
      this.delay = 500;
      this.onStatus(true);
      this.opened(ws);
    };
    ws.onmessage = (e) => {
      this.lastHeard = Date.now();
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === 'pong') { this.ponged(); return; }
      if (this.heard(msg)) this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      clearInterval(this.pinger);
      if (this.closed) return;
      this.onStatus(false);
      this.timer = setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
    clearInterval(this.pinger);
    this.pinger = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (Date.now() - this.lastHeard > 35000) { ws.close(); return; }
      this.ping(ws);
    }, 15000);
  }

  /** Each (re)connection, once open: what the server must be told again. */
  opened(_ws) {}

  /** Whether `msg` goes on to `onMessage` (after what the socket itself learns from it). */
  heard(_msg) { return true; }

  ping(ws) { ws.send('{"type":"ping"}'); }

  ponged() {}

  reconnectNow() {
    if (this.closed) return;
    // One on its way is left to arrive: a second would leave the first open behind it.
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) return;
    clearTimeout(this.timer);
    if (this.open) return;
    this.delay = 500;
    this.connect();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('pagehide', this.onHide);
    window.removeEventListener('pageshow', this.onShow);
    document.removeEventListener('visibilitychange', this.onVisible);
    if (this.ws) this.ws.close();
  }
}
