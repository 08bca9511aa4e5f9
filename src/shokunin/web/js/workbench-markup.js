// The Workbench view's static markup: four panes, their splitters and the image lightbox.

export const MARKUP = `
<div class="workbench">
  <div class="col col-left">
    <section class="pane pane-map">
      <header class="pane-head">
        <h2 data-i18n="pane.map"></h2>
        <div class="floor-tabs" role="group" data-i18n-aria-label="map.floor"></div>
        <div class="pane-actions">
          <button type="button" class="map-clear-arrows" data-i18n="map.clearArrows"></button>
          <button type="button" class="map-clear" data-i18n="map.clearMap"></button>
        </div>
      </header>
      <div class="pane-body map-body">
        <canvas id="map-canvas" role="img" data-i18n-aria-label="map.canvasLabel"></canvas>
        <p class="map-message muted" data-i18n="map.loading"></p>
      </div>
    </section>
    <div class="splitter split-left" role="separator" aria-orientation="horizontal" tabindex="0" data-i18n-aria-label="splitter.left"></div>
    <section class="pane pane-images">
      <header class="pane-head"><h2 data-i18n="pane.images"></h2></header>
      <div class="pane-body">
        <p class="image-empty muted" data-i18n="images.empty"></p>
        <div class="image-grid"></div>
      </div>
    </section>
  </div>
  <div class="splitter split-columns" role="separator" aria-orientation="vertical" tabindex="0" data-i18n-aria-label="splitter.columns"></div>
  <div class="col col-right">
    <section class="pane pane-chat">
      <header class="pane-head">
        <h2 data-i18n="pane.chat"></h2>
        <div class="pane-actions">
          <button type="button" class="thread-toggle" aria-haspopup="true" aria-expanded="false" aria-controls="thread-panel" data-i18n="threads.list"></button>
          <button type="button" class="thread-new" data-i18n="threads.new"></button>
        </div>
      </header>
      <div id="thread-panel" class="thread-panel" hidden>
        <h3 data-i18n="threads.heading"></h3>
        <nav class="thread-items" data-i18n-aria-label="threads.heading"></nav>
      </div>
      <div class="pane-body chat-log" aria-live="polite">
        <p class="chat-empty muted" data-i18n="chat.empty"></p>
      </div>
      <form class="chat-form">
        <div class="chat-running" hidden role="status">
          <span class="spinner" aria-hidden="true"></span><span data-i18n="chat.running"></span>
          <button type="button" class="chat-cancel danger" data-i18n="chat.cancel" hidden></button>
        </div>
        <div class="chat-compose">
          <textarea class="chat-input" rows="2" data-i18n-placeholder="chat.placeholder" data-i18n-aria-label="chat.placeholder"></textarea>
          <button type="submit" class="chat-send primary" data-i18n="chat.send" disabled></button>
        </div>
      </form>
    </section>
    <div class="splitter split-right" role="separator" aria-orientation="horizontal" tabindex="0" data-i18n-aria-label="splitter.right"></div>
    <section class="pane pane-debug">
      <header class="pane-head">
        <h2 data-i18n="pane.debug"></h2>
        <div class="pane-actions">
          <button type="button" class="debug-toggle" aria-pressed="true" data-i18n="debug.pretty"></button>
          <button type="button" class="debug-clear" data-i18n="debug.clear"></button>
        </div>
      </header>
      <div class="pane-body debug-log">
        <p class="debug-empty muted" data-i18n="debug.empty"></p>
      </div>
    </section>
  </div>
</div>
<dialog id="lightbox" class="lightbox">
  <figure>
    <img alt="">
    <figcaption class="lightbox-caption"></figcaption>
  </figure>
  <button type="button" class="lightbox-close" data-i18n-aria-label="images.close">×</button>
</dialog>
`;
