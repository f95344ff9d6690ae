// The methods that a view's parts call on the parts after them in the chain (pages/game,
// pages/analysis, pages/lobby: each part extends the one before), declared on the first part for
// the type check (npm run typecheck). Types only: nothing here is sent to browsers.

export {};

declare module '../web/pages/game/seats.js' {
  interface GameSeats {
    act(...args: any[]): any;
    closeWhy(...args: any[]): any;
    copyLink(...args: any[]): any;
    exportRecord(...args: any[]): any;
    goLive(...args: any[]): any;
    hint(...args: any[]): any;
    inviteLink(...args: any[]): any;
    join(...args: any[]): any;
    markCurrent(...args: any[]): any;
    play(...args: any[]): any;
    pump(...args: any[]): any;
    rematch(...args: any[]): any;
    resign(...args: any[]): any;
    setPublic(...args: any[]): any;
    show(...args: any[]): any;
    showReach(...args: any[]): any;
    step(...args: any[]): any;
    takeback(...args: any[]): any;
    why(...args: any[]): any;
  }
}

declare module '../web/pages/analysis/layout.js' {
  interface AnalysisLayout {
    answer(...args: any[]): any;
    body(...args: any[]): any;
    copy(...args: any[]): any;
    deleteBranch(...args: any[]): any;
    goTo(...args: any[]): any;
    next(...args: any[]): any;
    play(...args: any[]): any;
    playBetter(...args: any[]): any;
    prev(...args: any[]): any;
    recordText(...args: any[]): any;
    save(...args: any[]): any;
    show(...args: any[]): any;
  }
}

declare module '../web/pages/lobby/layout.js' {
  interface LobbyLayout {
    challenge(...args: any[]): any;
    createSeek(...args: any[]): any;
    loadMyRatings(...args: any[]): any;
    showChallenges(...args: any[]): any;
    showConnection(...args: any[]): any;
    showLive(...args: any[]): any;
    showNote(...args: any[]): any;
    showSeeks(...args: any[]): any;
  }
}
