// Browser test of the HTML report and its 3D viewer (web/viewer.js): opens
// the pages written by iklab_web_fixture_pages from file:// in Debian's
// Chromium (headless, WebGL through SwiftShader), driven by puppeteer-core.
//
// Usage: node viewer_test.js --pages DIR --screenshots DIR --chromium=PATH
//                            --gltf-loader=PATH (three.js r111's GLTFLoader.js)
//        node viewer_test.js --report DIR --screenshots DIR --chromium=PATH
// The second form checks a real report (`iklab run ... --out DIR`): every
// experiment page loads clean and every scene on it is drawn, not blank; the
// first scene of each page is saved as <experiment>.png.
// Exit code 0: passed; 1: failed; 77: skipped (no Chromium or puppeteer-core),
// with the reason on stdout. Screenshots (PNG) go to --screenshots.
'use strict';

const fs = require('fs');
const path = require('path');
const url = require('url');

function option(name) {
  const i = process.argv.findIndex((a) => a === '--' + name || a.startsWith('--' + name + '='));
  if (i < 0) return '';
  const a = process.argv[i];
  return a.includes('=') ? a.slice(a.indexOf('=') + 1) : process.argv[i + 1];
}
const pagesDir = option('pages') || option('report');
const realReport = option('report') !== '';
const shotsDir = option('screenshots');
const chromium = option('chromium');
const gltfLoader = option('gltf-loader');

function skip(why) {
  console.log('SKIPPED: ' + why);
  process.exit(77);
}
if (!chromium || chromium.endsWith('NOTFOUND') || !fs.existsSync(chromium)) {
  skip('Chromium not found (install Debian\'s chromium: scripts/install-deps.sh)');
}
let puppeteer;
try {
  puppeteer = require(path.join(__dirname, 'node_modules', 'puppeteer-core'));
} catch (e) {
  skip('puppeteer-core not installed in tests/web/node_modules (scripts/install-deps.sh runs npm ci there)');
}
fs.mkdirSync(shotsDir, {recursive: true});

let failures = 0;
function check(condition, what) {
  console.log((condition ? 'ok    ' : 'FAILED ') + what);
  if (!condition) failures += 1;
}

// Opens a page and records console errors, page errors, dialogs and every
// request that is not a local file.
async function open(browser, relative) {
  const page = await browser.newPage();
  await page.setViewport({width: 1100, height: 900});
  const log = {errors: [], dialogs: [], network: []};
  page.on('console', (m) => { if (m.type() === 'error') log.errors.push(m.text()); });
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('dialog', async (d) => { log.dialogs.push(d.message()); await d.dismiss(); });
  page.on('request', (r) => {
    if (!/^(file|data|blob|about):/.test(r.url())) log.network.push(r.url());
  });
  await page.goto(url.pathToFileURL(path.join(pagesDir, relative)).href, {waitUntil: 'load'});
  await page.waitForFunction(
      () => !document.querySelector('script.iklab-scene') ||
            document.documentElement.getAttribute('data-iklab-viewers') === 'done',
      {timeout: 20000});
  page.iklabLog = log;
  return page;
}

function checkClean(page, what) {
  const log = page.iklabLog;
  check(log.errors.length === 0, what + ': no console error' +
        (log.errors.length ? ' (' + log.errors.join(' | ') + ')' : ''));
  check(log.dialogs.length === 0, what + ': no dialog opened');
  check(log.network.length === 0, what + ': nothing requested from the network' +
        (log.network.length ? ' (' + log.network.join(', ') + ')' : ''));
}

// Fraction of the n-th viewer's canvas pixels that differ from the
// background, and a fingerprint of the picture.
async function picture(page, n = 0) {
  return page.evaluate((n) => {
    const c = document.querySelectorAll('.iklab-canvas')[n];
    const copy = document.createElement('canvas');
    copy.width = c.width; copy.height = c.height;
    const g = copy.getContext('2d');
    g.drawImage(c, 0, 0);
    const d = g.getImageData(0, 0, copy.width, copy.height).data;
    let differing = 0, hash = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - 0xf4) + Math.abs(d[i + 1] - 0xf4) + Math.abs(d[i + 2] - 0xf4) > 24) ++differing;
      hash = (hash * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) | 0;
    }
    return {fraction: differing / (d.length / 4), hash: hash};
  }, n);
}

async function shot(page, selector, name) {
  const element = await page.$(selector);
  await element.screenshot({path: path.join(shotsDir, name + '.png')});
}

async function statuses(page) {
  return page.$$eval('.iklab-viewer', (vs) => vs.map((v) => v.getAttribute('data-status')));
}

// Sets an <input> (range or checkbox) or <select> and fires its event.
async function setInput(page, selector, value, n = 0) {
  await page.evaluate((selector, value, n) => {
    const e = document.querySelectorAll(selector)[n];
    if (e.type === 'checkbox') e.checked = value; else e.value = String(value);
    e.dispatchEvent(new Event(e.tagName === 'SELECT' || e.type === 'checkbox' ? 'change' : 'input'));
  }, selector, value, n);
}

// Parses the .glb at `relative` (under the pages folder) in `page` with
// three.js r111's GLTFLoader: its animations' names and track counts, or
// the loader's error.
async function parseGlb(page, relative) {
  if (!await page.evaluate(() => !!THREE.GLTFLoader)) await page.addScriptTag({path: gltfLoader});
  const glb = fs.readFileSync(path.join(pagesDir, relative)).toString('base64');
  return page.evaluate((base64) => new Promise((resolve) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    new THREE.GLTFLoader().parse(bytes.buffer, '', (gltf) => resolve({
      animations: gltf.animations.map((a) => a.name),
      tracks: gltf.animations.map((a) => a.tracks.length)}), (e) => resolve({error: String(e)}));
  }), glb);
}

// The retargeting study's scenes (`iklab run retargeting-solvers`): each
// shows the source skeleton and the retargeted figure side by side, both
// drawn (turning either layer off changes the picture), and its frames
// advance when played.
async function checkRetargetingScenes(page, name) {
  const scenes = await page.$$eval('script.iklab-scene', (ss) => ss.map((s) => JSON.parse(s.textContent)));
  const targets = new Set();
  for (let n = 0; n < scenes.length; ++n) {
    const scene = scenes[n], view = scene.views[0];
    const what = name + ': scene ' + (n + 1) + ' (' + view.name + ')';
    const figures = view.layers.filter((l) => l.type === 'figure');
    const names = figures.map((l) => scene.figures[l.figure].name);
    const target = names.find((f) => f !== 'source skeleton');
    if (target) targets.add(target);
    check(names.includes('source skeleton') && target !== undefined,
          what + ': the source skeleton and the retargeted ' + target + ' (' + names.join(', ') + ')');
    check(view.frames > 1 && figures.every((l) => l.poses.length === view.frames),
          what + ': every figure has a pose for each of the ' + view.frames + ' frames');
    const labels = await page.evaluate((n) => [...document.querySelectorAll('.iklab-viewer')[n]
        .querySelectorAll('.iklab-legend-label')].map((l) => l.textContent), n);
    const toggle = (row, on) => page.evaluate((n, row, on) => {
      const e = document.querySelectorAll('.iklab-viewer')[n].querySelectorAll('.iklab-legend-row input')[row];
      e.checked = on;
      e.dispatchEvent(new Event('change'));
    }, n, row, on);
    // The source layer alone, then every answer's layer (solvers that agree
    // draw the same figure over each other).
    const shown = await picture(page, n);
    const source = labels.map((l, i) => l.startsWith('source') ? i : -1).filter((i) => i >= 0);
    const results = labels.map((l, i) => l.startsWith('source') || l.startsWith('key points') ||
                                         l === 'ground' ? -1 : i).filter((i) => i >= 0);
    for (const [label, rows] of [['source', source], ['retargeted', results]]) {
      check(rows.length > 0, what + ': the legend lists the ' + label + ' figure (' + labels.join(', ') + ')');
      if (rows.length === 0) continue;
      for (const row of rows) await toggle(row, false);
      check((await picture(page, n)).hash !== shown.hash,
            what + ': the ' + label + ' figure is drawn (turning "' + rows.map((r) => labels[r]).join('", "') +
            '" off changes the picture)');
      for (const row of rows) await toggle(row, true);
    }
    // Playing: the frame counter and the picture take several values (a
    // short clip wraps around within the wait, so sample while it plays).
    const frame = () => page.evaluate((n) =>
        Number(document.querySelectorAll('.iklab-viewer')[n].querySelector('.iklab-frame').value), n);
    const play = () => page.evaluate((n) =>
        document.querySelectorAll('.iklab-viewer')[n].querySelector('.iklab-play').click(), n);
    const seenFrames = new Set([await frame()]), seenPictures = new Set([shown.hash]);
    await play();
    for (let i = 0; i < 12; ++i) {
      await new Promise((r) => setTimeout(r, 40));
      seenFrames.add(await frame());
      seenPictures.add((await picture(page, n)).hash);
    }
    await play();
    check(seenFrames.size > 1 && seenPictures.size > 1,
          what + ': playing advances the frames (' + [...seenFrames].join(', ') + ') and moves the figures (' +
          seenPictures.size + ' pictures)');
  }
  check(targets.has('the human figure') && targets.has('the H1 humanoid'),
        name + ': scenes onto the human figure and the H1 humanoid (' + [...targets].join(', ') + ')');
  checkClean(page, name + ' after playing');
}

// A real report: each experiment's page from index.html's links.
async function checkReport(browser) {
  const index = await open(browser, 'index.html');
  checkClean(index, 'index');
  const pages = await index.$$eval('#summary tbody a', (as) =>
      [...new Set(as.map((a) => a.getAttribute('href')))]);
  await index.close();
  check(pages.length > 0, 'index: links to ' + pages.length + ' experiment pages');
  for (const relative of pages) {
    const name = relative.replace(/\.html$/, '');
    const page = await open(browser, relative);
    checkClean(page, name);
    const all = await statuses(page);
    check(all.length > 0 && all.every((s) => s === 'ready'),
          name + ': ' + all.length + ' scene(s), every one drawn (' + all.join(', ') + ')');
    const glbs = await page.$$eval('a.iklab-gltf-file', (as) => as.map((a) => a.getAttribute('href')));
    check(glbs.length === all.length && glbs.every((h) => fs.existsSync(path.join(pagesDir, h))),
          name + ': every scene links its animated glTF (' + glbs.join(', ') + ')');
    if (gltfLoader && fs.existsSync(gltfLoader)) {
      const views = await page.$$eval('script.iklab-scene', (ss) => ss.map((s) =>
          JSON.parse(s.textContent).views.map((v) => v.name)));
      for (let n = 0; n < glbs.length && n < views.length; ++n) {
        const parsed = await parseGlb(page, glbs[n]);
        check(!parsed.error && JSON.stringify(parsed.animations) === JSON.stringify(views[n]) &&
              parsed.tracks.every((t) => t > 0),
              name + ': GLTFLoader parses ' + glbs[n] + ' with one animation per view (' +
              (parsed.error || parsed.animations.length + ' animations') + ')');
      }
    }
    for (let n = 0; n < all.length; ++n) {
      const p = await picture(page, n);
      check(p.fraction > 0.003, name + ': scene ' + (n + 1) + ' is not blank (' +
            (100 * p.fraction).toFixed(1) + '% drawn)');
    }
    // An animated scene is shown half-way, and the slider must move it.
    const frames = await page.evaluate(() => {
      const f = document.querySelector('.iklab-viewer .iklab-frame');
      const player = document.querySelector('.iklab-viewer .iklab-player');
      return f && player && player.style.display !== 'none' ? Number(f.max) : 0;
    });
    if (frames > 0) {
      const before = await picture(page);
      await setInput(page, '.iklab-frame', Math.floor(frames / 2));
      check((await picture(page)).hash !== before.hash,
            name + ': moving the frame slider to frame ' + Math.floor(frames / 2) +
            ' of ' + frames + ' changes the picture');
    }
    if (name === 'retargeting-solvers') {
      await checkRetargetingScenes(page, name);
    }
    if (all.length > 0) await shot(page, '.iklab-viewer', name);
    await page.close();
  }
}

// The fixture pages of iklab_web_fixture_pages.
async function checkFixtures(browser) {
  // A trial: two solvers' answers, a target and every static layer type.
  let page = await open(browser, 'chain/scene.html');
  checkClean(page, 'chain');
  check((await statuses(page))[0] === 'ready', 'chain: the viewer is ready');
  let p = await picture(page);
  check(p.fraction > 0.003, 'chain: the canvas is not blank (' + (100 * p.fraction).toFixed(1) + '% drawn)');
  const legend = await page.$$eval('.iklab-legend-label', (ls) => ls.map((l) => l.textContent));
  check(legend.length === 10 && legend[0] === 'bounded-lm', 'chain: the legend lists the 10 layers');
  const table = await page.$$eval('.iklab-view-table td', (ts) => ts.map((t) => t.textContent));
  check(table.includes('bounded-lm') && table.includes('8.2e-06'), 'chain: the view\'s table is shown');
  await shot(page, '.iklab-viewer', 'chain-overlay');
  await setInput(page, '.iklab-side-by-side input', true);
  const side = await picture(page);
  check(side.hash !== p.hash, 'chain: side by side changes the picture');
  await shot(page, '.iklab-viewer', 'chain-side-by-side');
  await setInput(page, '.iklab-legend-row input', false, 0);
  check((await picture(page)).hash !== side.hash, 'chain: turning a layer off changes the picture');
  const glb = await page.evaluate(() => new Promise((resolve) => {
    document.querySelector('.iklab-viewer').iklabViewer.exportGltf((b) => resolve(b.byteLength));
  }));
  check(await page.$('.iklab-gltf') !== null && glb > 1000,
        'chain: the download glTF button exports the view (' + glb + ' bytes of .glb)');
  await setInput(page, '.iklab-view-select', 1);
  check((await page.$$eval('.iklab-legend-label', (ls) => ls.length)) === 1,
        'chain: picking the second view shows its one layer');
  await page.close();

  // The trials table: one row per trial and solver; a row picks its view.
  page = await open(browser, 'chain/scene.html');
  const rowState = () => page.$$eval('.iklab-view-table tbody tr', (rs) => rs.map((r) => ({
    view: r.cells[0].textContent, current: r.classList.contains('iklab-row-current'),
    selected: r.classList.contains('iklab-row-selected'), focusable: r.tabIndex === 0})));
  let rowsNow = await rowState();
  check(rowsNow.length === 3 && rowsNow.every((r) => r.focusable) &&
        JSON.stringify(rowsNow.map((r) => r.view)) === '["trial 1","trial 1","trial 2"]',
        'trials table: one focusable row per trial and solver, naming its view');
  check(JSON.stringify(rowsNow.map((r) => r.current)) === '[true,true,false]',
        'trials table: the first view\'s rows are highlighted');
  const beforeClick = await picture(page);
  await page.click('.iklab-view-table tbody tr:nth-child(3)');
  rowsNow = await rowState();
  check((await picture(page)).hash !== beforeClick.hash &&
        await page.$eval('.iklab-view-select', (s) => s.value) === '1',
        'trials table: clicking the trial 2 row shows trial 2 (the picture changed)');
  check(JSON.stringify(rowsNow.map((r) => r.selected)) === '[false,false,true]' &&
        JSON.stringify(rowsNow.map((r) => r.current)) === '[false,false,true]',
        'trials table: the clicked row is the highlighted one');
  const afterClick = await picture(page);
  await page.focus('.iklab-view-table tbody tr:nth-child(2)');
  await page.keyboard.press('Enter');
  rowsNow = await rowState();
  check((await picture(page)).hash !== afterClick.hash &&
        await page.$eval('.iklab-view-select', (s) => s.value) === '0' &&
        JSON.stringify(rowsNow.map((r) => r.selected)) === '[false,true,false]',
        'trials table: Enter on a focused row shows its view and highlights it');
  await setInput(page, '.iklab-view-select', 1);
  rowsNow = await rowState();
  check(JSON.stringify(rowsNow.map((r) => r.current)) === '[false,false,true]' &&
        rowsNow.every((r) => !r.selected),
        'trials table: a view chosen from the list has its row highlighted');
  await shot(page, '.iklab-viewer', 'chain-trials-table');
  await page.close();

  // An animated view: the frame slider moves the figure.
  page = await open(browser, 'animated/scene.html');
  checkClean(page, 'animated');
  check(await page.$eval('.iklab-player', (e) => e.style.display !== 'none'),
        'animated: the frame slider and play button are shown');
  const first = await picture(page);
  check(first.fraction > 0.003, 'animated: the canvas is not blank');
  await shot(page, '.iklab-viewer', 'animated-frame-0');
  await setInput(page, '.iklab-frame', 20);
  const later = await picture(page);
  check(later.hash !== first.hash, 'animated: moving the frame slider changes the picture');
  check(await page.$eval('.iklab-frame-text', (e) => e.textContent) === 'frame 21 of 40',
        'animated: the frame is named');
  await shot(page, '.iklab-viewer', 'animated-frame-20');
  await page.click('.iklab-play');
  await new Promise((r) => setTimeout(r, 400));
  await page.click('.iklab-play');
  check(await page.$eval('.iklab-frame', (e) => Number(e.value)) !== 20, 'animated: play advances the frames');
  await page.close();

  // A voxel map: coloured cubes, a colour bar and a slicing slider.
  page = await open(browser, 'voxels/scene.html');
  checkClean(page, 'voxels');
  const whole = await picture(page);
  check(whole.fraction > 0.003, 'voxels: the canvas is not blank');
  check(await page.$('.iklab-colorbar') !== null, 'voxels: a colour bar is shown');
  await shot(page, '.iklab-viewer', 'voxels');
  await setInput(page, '.iklab-slice', 500);
  check((await picture(page)).hash !== whole.hash, 'voxels: the slicing slider changes the picture');
  await shot(page, '.iklab-viewer', 'voxels-sliced');
  await page.close();

  // Refused scenes: a message in words instead of the canvas.
  for (const [name, words] of [['damaged', 'poses'], ['version99', 'version 99']]) {
    page = await open(browser, name + '/scene.html');
    checkClean(page, name);
    const message = await page.$eval('.iklab-viewer', (v) => v.textContent);
    check((await statuses(page))[0] === 'error' && message.includes(words) &&
          message.includes('cannot be shown'),
          name + ': the page says in words why it cannot show the scene ("' + message + '")');
    check(await page.$('.iklab-canvas') === null, name + ': no blank canvas');
    await shot(page, 'body', name);
    await page.close();
  }

  // Hostile names are shown as text and run nothing.
  page = await open(browser, 'xss/scene.html');
  checkClean(page, 'xss');
  check((await statuses(page))[0] === 'ready', 'xss: the viewer is ready');
  check(await page.$$eval('img', (is) => is.length) === 0, 'xss: no <img> element was created');
  const text = await page.$eval('.iklab-viewer', (v) => v.textContent);
  check(text.includes('<img src=x onerror=alert(1)>1 (revolute)') &&
        text.includes('<img src=x onerror=alert(1)>b'),
        'xss: joint, site and solver names are shown as text');
  await shot(page, '.iklab-viewer', 'xss');
  await page.close();

  // The report: summary filters, experiment pages with embedded scenes.
  page = await open(browser, 'report/index.html');
  checkClean(page, 'report index');
  const rows = () => page.$$eval('#summary tbody tr', (rs) => rs.filter((r) => r.style.display !== 'none').length);
  check(await rows() === 3, 'report index: one summary row per claim');
  await page.select('#filter-verdict', 'differs');
  check(await rows() === 2, 'report index: the verdict filter keeps the 2 differing claims');
  await page.select('#filter-verdict', '');
  await page.select('#filter-source', 'Other paper, Table 2');
  check(await rows() === 1, 'report index: the source filter keeps one source');
  check(await page.$$eval('img', (is) => is.length) === 0, 'report index: hostile names made no <img>');
  await shot(page, 'body', 'report-index');
  await page.close();

  page = await open(browser, 'report/chain-trials.html');
  checkClean(page, 'report page');
  check(JSON.stringify(await statuses(page)) === '["ready","error"]',
        'report page: the scene is drawn and the damaged scene file is refused in words');
  check((await picture(page)).fraction > 0.003, 'report page: the canvas is not blank');
  check(await page.$$eval('img', (is) => is.length) === 0 &&
        await page.$$eval('body script', (ss) => ss.filter((s) => !s.classList.contains('iklab-scene')).length) === 0,
        'report page: raw HTML in Markdown and names made no element');
  check(await page.$eval('em', (e) => e.textContent) === 'Fixture, Fig. 1' &&
        (await page.$$eval('p em', (es) => es.map((e) => e.textContent))).includes('Markdown'),
        'report page: Markdown is rendered');
  await shot(page, 'body', 'report-page');

  // The scene's animated glTF, linked from the page, parsed by three.js
  // r111's GLTFLoader: one animation per view, and at time 0 of the first
  // one the answer's sites where the scene puts them (z up -> glTF's y up).
  const links = await page.$$eval('a.iklab-gltf-file', (as) => as.map((a) => a.getAttribute('href')));
  check(JSON.stringify(links) === '["chain-trials/scene.glb"]',
        'report page: the scene links its animated glTF, the damaged one none (' + links + ')');
  if (!gltfLoader || !fs.existsSync(gltfLoader)) {
    check(false, 'GLTFLoader.js of three.js r111 not found (' + gltfLoader + ')');
  } else if (links.length === 1) {
    await page.addScriptTag({path: gltfLoader});
    const glb = fs.readFileSync(path.join(pagesDir, 'report', links[0])).toString('base64');
    const parsed = await page.evaluate((base64) => new Promise((resolve) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      new THREE.GLTFLoader().parse(bytes.buffer, '', (gltf) => {
        const scene = JSON.parse(document.querySelector('script.iklab-scene').textContent);
        const mixer = new THREE.AnimationMixer(gltf.scene);
        mixer.clipAction(gltf.animations[0]).play();
        mixer.setTime(0);
        gltf.scene.updateMatrixWorld(true);
        const figure = scene.figures[0], layer = scene.views[0].layers[0];
        // GLTFLoader names objects with THREE.PropertyBinding.sanitizeNodeName.
        let worst = 0;
        const missing = [];
        figure.sites.forEach((site, i) => {
          const name = THREE.PropertyBinding.sanitizeNodeName(layer.label + '/' + site.name);
          const node = gltf.scene.getObjectByName(name);
          if (!node) { missing.push(name); return; }
          const p = new THREE.Vector3().setFromMatrixPosition(node.matrixWorld);
          const at = 7 * figure.steps.length + 3 * i, q = layer.poses[0];
          worst = Math.max(worst, p.distanceTo(new THREE.Vector3(q[at], q[at + 2], -q[at + 1])));
        });
        resolve({animations: gltf.animations.map((a) => a.name),
                 tracks: gltf.animations.map((a) => a.tracks.length),
                 sites: figure.sites.length, missing: missing, worst: worst});
      }, (e) => resolve({error: String(e)}));
    }), glb);
    check(!parsed.error && JSON.stringify(parsed.animations) === '["trial 1","trial 2"]' &&
          parsed.tracks.every((n) => n > 0),
          'glTF: GLTFLoader parses the .glb with one animation per view (' + JSON.stringify(parsed) + ')');
    check(parsed.sites > 0 && parsed.missing.length === 0 && parsed.worst < 1e-4,
          'glTF: at time 0 of "trial 1" the ' + parsed.sites + ' sites are where the scene puts them (' +
          'largest distance ' + parsed.worst + (parsed.missing.length ? ', missing ' + parsed.missing : '') + ')');
  }
  await page.close();
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
           '--disable-gpu-sandbox', '--no-first-run', '--disable-extensions'],
  });
  try {
    await (realReport ? checkReport(browser) : checkFixtures(browser));
  } finally {
    await browser.close();
  }
  console.log(failures === 0 ? 'all browser checks passed' : failures + ' browser check(s) failed');
  console.log('screenshots: ' + shotsDir);
  process.exit(failures === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
