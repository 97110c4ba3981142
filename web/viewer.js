// iklab scene viewer: draws the scenes of docs/scene-format.md with three.js
// (r111, classic scripts: pages open from file://, where Chromium refuses ES
// modules and fetch()). A page embeds each scene as
//   <script type="application/json" class="iklab-scene">{...}</script>
// with '<' written as \u003c, and loads three.min.js, OrbitControls.js and
// this file. Every string taken from a scene reaches the page through
// textContent, never innerHTML. Nothing is loaded from the network.
//
// Each viewer's element gets data-status="ready" once drawn, or "error" when
// the scene is refused (its message in words replaces the canvas); the page's
// <html> gets data-iklab-viewers="done" when every viewer has started.
(function () {
  'use strict';

  if (typeof THREE === 'undefined') {
    // Refuse in words rather than fail on the first THREE reference.
    document.addEventListener('DOMContentLoaded', function () {
      var scripts = document.querySelectorAll('script.iklab-scene');
      for (var i = 0; i < scripts.length; ++i) {
        showError(scripts[i].parentNode, 'three.js did not load (the assets folder next to this page is missing).');
      }
      document.documentElement.setAttribute('data-iklab-viewers', 'done');
    });
    return;
  }

  var kVersion = 1;
  var kLayerTypes = ['figure', 'points', 'poses', 'rays', 'path', 'plane', 'cone',
                     'box', 'sphere', 'capsule', 'voxels'];

  // ---- small DOM helpers (text only) ----
  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  // ---- validation: refuse a scene in words ----
  function SceneError(message) { this.message = message; }

  function demand(condition, message) {
    if (!condition) throw new SceneError(message);
  }
  function isNumberArray(a, length) {
    if (!Array.isArray(a)) return false;
    if (length !== undefined && a.length !== length) return false;
    for (var i = 0; i < a.length; ++i) {
      if (typeof a[i] !== 'number' || !isFinite(a[i])) return false;
    }
    return true;
  }
  function demandNumbers(a, length, what) {
    demand(isNumberArray(a, length), what + ' must be ' +
           (length !== undefined ? length + ' finite numbers' : 'a list of finite numbers'));
  }
  function demandTriples(a, what) {
    demandNumbers(a, undefined, what);
    demand(a.length % 3 === 0, what + ' must hold x, y, z triples (' + a.length + ' numbers given)');
  }
  // Static data, or one entry per frame when `animated`.
  function perFrame(layer, key, frames, check, what) {
    if (layer.animated) {
      demand(Array.isArray(layer[key]) && layer[key].length === frames,
             what + ' is animated and must have one entry per frame (' + frames + ')');
      layer[key].forEach(function (entry, f) { check(entry, what + ', frame ' + f); });
    } else {
      check(layer[key], what);
    }
  }

  function validateScene(scene) {
    demand(scene !== null && typeof scene === 'object' && !Array.isArray(scene),
           'The scene is not a JSON object.');
    demand(scene.format === 'iklab-scene',
           'This is not an iklab scene: its "format" is ' + JSON.stringify(scene.format) +
           ', not "iklab-scene".');
    demand(scene.version === kVersion,
           'This scene is version ' + JSON.stringify(scene.version) + '; this page reads version ' +
           kVersion + '. Open it with the iklab release that wrote it, or a newer one.');
    demand(Array.isArray(scene.figures), 'The scene has no "figures" list.');
    demand(Array.isArray(scene.views) && scene.views.length > 0, 'The scene has no views.');
    if (scene.up !== undefined) demandNumbers(scene.up, 3, '"up"');
    scene.figures.forEach(function (figure, i) {
      var where = 'figure ' + i;
      demand(figure && Array.isArray(figure.steps) && figure.steps.length > 0,
             where + ' has no steps');
      figure.steps.forEach(function (step, s) {
        demand(step && typeof step.parent === 'number' && step.parent < s && step.parent >= -1 &&
               Math.floor(step.parent) === step.parent,
               where + ', step ' + s + ': "parent" must be an earlier step or -1');
        demand(['fixed', 'revolute', 'prismatic'].indexOf(step.kind) >= 0,
               where + ', step ' + s + ': unknown kind ' + JSON.stringify(step.kind));
        if (step.axis !== undefined) demandNumbers(step.axis, 3, where + ', step ' + s + ' axis');
      });
      figure.sites = figure.sites || [];
      demand(Array.isArray(figure.sites), where + ': "sites" must be a list');
      figure.sites.forEach(function (site, s) {
        demand(site && site.step >= 0 && site.step < figure.steps.length,
               where + ', site ' + s + ' names no step of the figure');
      });
    });
    scene.views.forEach(function (view, v) {
      var where = 'view ' + v;
      demand(view && Number.isInteger(view.frames) && view.frames >= 1,
             where + ': "frames" must be a whole number >= 1');
      demand(Array.isArray(view.layers), where + ' has no "layers" list');
      if (view.table !== undefined) {
        demand(view.table && Array.isArray(view.table.columns) && Array.isArray(view.table.rows),
               where + ': "table" needs "columns" and "rows"');
      }
      view.layers.forEach(function (layer, l) {
        validateLayer(scene, view, layer, where + ', layer ' + l);
      });
    });
  }

  function validateLayer(scene, view, layer, where) {
    demand(layer && kLayerTypes.indexOf(layer.type) >= 0,
           where + ': unknown type ' + JSON.stringify(layer && layer.type));
    var frames = view.frames;
    switch (layer.type) {
      case 'figure': {
        var figure = scene.figures[layer.figure];
        demand(figure !== undefined, where + ': "figure" ' + JSON.stringify(layer.figure) +
               ' is not an index into "figures"');
        var n = 7 * figure.steps.length + 3 * figure.sites.length;
        demand(Array.isArray(layer.poses) && layer.poses.length === frames,
               where + ': "poses" must have one entry per frame (' + frames + ')');
        layer.poses.forEach(function (p, f) {
          demandNumbers(p, n, where + ', frame ' + f + ' poses');
        });
        break;
      }
      case 'points':
        perFrame(layer, 'points', frames, demandTriples, where + ' points');
        break;
      case 'poses':
        perFrame(layer, 'poses', frames, function (p, w) {
          demandNumbers(p, undefined, w);
          demand(p.length % 7 === 0, w + ' must hold 7 numbers per pose');
        }, where + ' poses');
        break;
      case 'rays':
        demandTriples(layer.origins, where + ' origins');
        demandTriples(layer.directions, where + ' directions');
        demand(layer.origins.length === layer.directions.length,
               where + ': as many origins as directions');
        break;
      case 'path':
        demandTriples(layer.points, where + ' points');
        break;
      case 'plane':
        demandNumbers(layer.point, 3, where + ' point');
        demandNumbers(layer.normal, 3, where + ' normal');
        break;
      case 'cone':
        demandNumbers(layer.apex, 3, where + ' apex');
        demandNumbers(layer.axis, 3, where + ' axis');
        demandNumbers([layer.half_angle, layer.length], 2, where + ' half_angle and length');
        break;
      case 'box':
        demandNumbers(layer.center, 3, where + ' center');
        demandNumbers(layer.half_extents, 3, where + ' half_extents');
        if (layer.rotation !== undefined) demandNumbers(layer.rotation, 4, where + ' rotation');
        break;
      case 'sphere':
        demandNumbers(layer.center, 3, where + ' center');
        demandNumbers([layer.radius], 1, where + ' radius');
        break;
      case 'capsule':
        demandNumbers(layer.a, 3, where + ' a');
        demandNumbers(layer.b, 3, where + ' b');
        demandNumbers([layer.radius], 1, where + ' radius');
        break;
      case 'voxels':
        demandNumbers([layer.size], 1, where + ' size');
        demandTriples(layer.centers, where + ' centers');
        demandNumbers(layer.values, layer.centers.length / 3, where + ' values (one per centre)');
        if (layer.range !== undefined) demandNumbers(layer.range, 2, where + ' range');
        break;
    }
  }

  // ---- geometry helpers ----
  var kYAxis = new THREE.Vector3(0, 1, 0);
  var kUnitCylinder = new THREE.CylinderBufferGeometry(1, 1, 1, 16, 1);
  var kUnitSphere = new THREE.SphereBufferGeometry(1, 16, 12);

  function colorOf(layer, fallback) {
    return new THREE.Color(typeof layer.color === 'string' && /^#[0-9a-fA-F]{6}$/.test(layer.color)
                           ? layer.color : fallback);
  }
  function vec(a, i) { return new THREE.Vector3(a[i], a[i + 1], a[i + 2]); }
  function solid(color) { return new THREE.MeshLambertMaterial({color: color}); }
  function translucent(color) {
    return new THREE.MeshLambertMaterial({color: color, transparent: true, opacity: 0.3,
                                          side: THREE.DoubleSide, depthWrite: false});
  }
  // Places a unit cylinder mesh between a and b with radius r (hidden when a = b).
  function placeCylinder(mesh, a, b, r) {
    var d = new THREE.Vector3().subVectors(b, a);
    var length = d.length();
    mesh.visible = length > 1e-12;
    if (!mesh.visible) return;
    mesh.position.addVectors(a, b).multiplyScalar(0.5);
    mesh.quaternion.setFromUnitVectors(kYAxis, d.divideScalar(length));
    mesh.scale.set(r, length, r);
  }
  function sphereMesh(material, r) {
    var m = new THREE.Mesh(kUnitSphere, material);
    m.scale.setScalar(r);
    return m;
  }
  // The bounding box of the visible objects under `root` (hidden ones, such
  // as unused pool entries at the origin, would inflate it).
  function visibleBox(root) {
    var box = new THREE.Box3();
    root.updateMatrixWorld(true);
    (function visit(object) {
      if (!object.visible) return;
      if (object.geometry) {
        if (!object.geometry.boundingBox) object.geometry.computeBoundingBox();
        var b = object.geometry.boundingBox.clone();
        var range = object.geometry.drawRange;
        if (range && range.count === 0) b.makeEmpty();
        if (!b.isEmpty()) box.union(b.applyMatrix4(object.matrixWorld));
      }
      object.children.forEach(visit);
    })(root);
    return box;
  }

  // A pool of objects grown on demand, the unused ones hidden.
  function Pool(group, make) {
    var items = [];
    return function (count) {
      while (items.length < count) { items.push(make()); group.add(items[items.length - 1]); }
      for (var i = 0; i < items.length; ++i) items[i].visible = i < count;
      return items;
    };
  }

  // ---- one builder per layer type: returns {object, update(frame)} ----
  function buildFigure(scene, layer) {
    var figure = scene.figures[layer.figure];
    var steps = figure.steps;
    var r = figure.radius > 0 ? figure.radius : 0.02;
    var color = colorOf(layer, '#4477aa');
    var group = new THREE.Group();
    var linkMaterial = solid(color);
    var jointMaterial = solid(color.clone().multiplyScalar(0.7));
    var siteMaterial = solid(new THREE.Color('#222222'));
    var links = [], joints = [], axes = [], sites = [];
    // The translations of a floating base (prismatic steps from the root)
    // move the figure; they are not bodies, so no bar is drawn from the
    // world origin to the figure.
    var translation = steps.map(function () { return false; });
    steps.forEach(function (step, i) {
      translation[i] = step.kind === 'prismatic' && step.parent >= 0 &&
                       (steps[step.parent].parent < 0 || translation[step.parent]);
    });
    steps.forEach(function (step) {
      var link = new THREE.Mesh(kUnitCylinder, linkMaterial);
      links.push(link); group.add(link);
      var joint = sphereMesh(jointMaterial, r * 1.15);
      joints.push(joint); group.add(joint);
      var moving = step.kind !== 'fixed' && isNumberArray(step.axis, 3) &&
                   (step.axis[0] || step.axis[1] || step.axis[2]);
      var arrow = null;
      if (moving) {
        arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(),
                                      r * 5, step.kind === 'prismatic' ? 0xcc6600 : 0xcc2222,
                                      r * 1.5, r * 1.2);
        group.add(arrow);
      }
      axes.push(arrow);
    });
    // Sites: a sphere, joined to its step's frame by a thin link.
    var siteLinks = [];
    figure.sites.forEach(function () {
      var s = sphereMesh(siteMaterial, r * 0.8);
      sites.push(s); group.add(s);
      var link = new THREE.Mesh(kUnitCylinder, linkMaterial);
      siteLinks.push(link); group.add(link);
    });
    function update(frame) {
      var p = layer.poses[Math.min(frame, layer.poses.length - 1)];
      var positions = [];
      steps.forEach(function (step, i) {
        positions.push(vec(p, 7 * i));
      });
      steps.forEach(function (step, i) {
        joints[i].position.copy(positions[i]);
        if (step.parent >= 0 && !translation[i]) {
          placeCylinder(links[i], positions[step.parent], positions[i], r);
        } else {
          links[i].visible = false;
        }
        if (axes[i]) {
          var q = new THREE.Quaternion(p[7 * i + 3], p[7 * i + 4], p[7 * i + 5], p[7 * i + 6]);
          var axis = new THREE.Vector3(step.axis[0], step.axis[1], step.axis[2])
                         .normalize().applyQuaternion(q);
          axes[i].position.copy(positions[i]);
          axes[i].setDirection(axis);
        }
      });
      var base = 7 * steps.length;
      sites.forEach(function (s, k) {
        s.position.copy(vec(p, base + 3 * k));
        placeCylinder(siteLinks[k], positions[figure.sites[k].step], s.position, r * 0.6);
      });
    }
    return {object: group, update: update};
  }

  function frameData(layer, key, frame) {
    return layer.animated ? layer[key][Math.min(frame, layer[key].length - 1)] : layer[key];
  }

  function buildPoints(scene, layer) {
    var group = new THREE.Group();
    var material = solid(colorOf(layer, '#dd3333'));
    var size = layer.size > 0 ? layer.size : 0.02;
    var pool = Pool(group, function () { return sphereMesh(material, size); });
    return {object: group, update: function (frame) {
      var p = frameData(layer, 'points', frame);
      var items = pool(p.length / 3);
      for (var i = 0; i < p.length / 3; ++i) items[i].position.copy(vec(p, 3 * i));
    }};
  }

  function buildPoses(scene, layer) {
    var group = new THREE.Group();
    var size = layer.size > 0 ? layer.size : 0.1;
    var pool = Pool(group, function () { return new THREE.AxesHelper(size); });
    return {object: group, update: function (frame) {
      var p = frameData(layer, 'poses', frame);
      var items = pool(p.length / 7);
      for (var i = 0; i < p.length / 7; ++i) {
        items[i].position.copy(vec(p, 7 * i));
        items[i].quaternion.set(p[7 * i + 3], p[7 * i + 4], p[7 * i + 5], p[7 * i + 6]).normalize();
      }
    }};
  }

  function buildRays(scene, layer) {
    var group = new THREE.Group();
    var color = colorOf(layer, '#aa33aa');
    var length = layer.length > 0 ? layer.length : 0.2;
    for (var i = 0; i < layer.origins.length; i += 3) {
      var d = vec(layer.directions, i);
      if (d.length() < 1e-12) continue;
      group.add(new THREE.ArrowHelper(d.normalize(), vec(layer.origins, i), length, color,
                                      length * 0.15, length * 0.08));
    }
    return {object: group};
  }

  function buildPath(scene, layer) {
    var points = [];
    for (var i = 0; i < layer.points.length; i += 3) points.push(vec(layer.points, i));
    var geometry = new THREE.BufferGeometry().setFromPoints(points);
    var material = new THREE.LineBasicMaterial({color: colorOf(layer, '#228833')});
    return {object: layer.closed ? new THREE.LineLoop(geometry, material)
                                 : new THREE.Line(geometry, material)};
  }

  function buildPlane(scene, layer) {
    var size = layer.size > 0 ? layer.size : 1;
    var mesh = new THREE.Mesh(new THREE.PlaneBufferGeometry(size, size),
                              translucent(colorOf(layer, '#888888')));
    mesh.position.fromArray(layer.point);
    var n = new THREE.Vector3().fromArray(layer.normal);
    if (n.length() > 1e-12) mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), n.normalize());
    return {object: mesh};
  }

  function buildCone(scene, layer) {
    var h = layer.length > 0 ? layer.length : 0.3;
    var geometry = new THREE.ConeBufferGeometry(h * Math.tan(layer.half_angle), h, 32, 1, true);
    geometry.translate(0, -h / 2, 0);  // apex at the origin, opening along -y
    var mesh = new THREE.Mesh(geometry, translucent(colorOf(layer, '#ccbb44')));
    mesh.position.fromArray(layer.apex);
    var axis = new THREE.Vector3().fromArray(layer.axis);
    if (axis.length() > 1e-12) mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, -1, 0), axis.normalize());
    return {object: mesh};
  }

  function buildBox(scene, layer) {
    var e = layer.half_extents;
    var mesh = new THREE.Mesh(new THREE.BoxBufferGeometry(2 * e[0], 2 * e[1], 2 * e[2]),
                              translucent(colorOf(layer, '#66ccee')));
    mesh.position.fromArray(layer.center);
    if (layer.rotation) mesh.quaternion.fromArray(layer.rotation).normalize();
    return {object: mesh};
  }

  function buildSphere(scene, layer) {
    var mesh = sphereMesh(translucent(colorOf(layer, '#ee6677')), layer.radius);
    mesh.position.fromArray(layer.center);
    return {object: mesh};
  }

  function buildCapsule(scene, layer) {
    var group = new THREE.Group();
    var material = translucent(colorOf(layer, '#ee6677'));
    var a = new THREE.Vector3().fromArray(layer.a), b = new THREE.Vector3().fromArray(layer.b);
    var body = new THREE.Mesh(kUnitCylinder, material);
    placeCylinder(body, a, b, layer.radius);
    group.add(body);
    [a, b].forEach(function (end) {
      var cap = sphereMesh(material, layer.radius);
      cap.position.copy(end);
      group.add(cap);
    });
    return {object: group};
  }

  // Colour map (viridis, sampled at 5 stops) for values in [0, 1].
  var kColorStops = ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'].map(function (c) {
    return new THREE.Color(c);
  });
  function colorMap(t) {
    t = Math.min(1, Math.max(0, isFinite(t) ? t : 0)) * (kColorStops.length - 1);
    var i = Math.min(kColorStops.length - 2, Math.floor(t));
    return kColorStops[i].clone().lerp(kColorStops[i + 1], t - i);
  }
  function voxelRange(layer) {
    if (layer.range) return layer.range;
    var lo = Infinity, hi = -Infinity;
    layer.values.forEach(function (v) { lo = Math.min(lo, v); hi = Math.max(hi, v); });
    return [lo, hi];
  }

  // Voxels: one merged mesh of cubes with vertex colours, sorted along the
  // slicing axis so that the slice is a draw range (no rebuild per move).
  function buildVoxels(scene, layer, sliceAxis) {
    var count = layer.values.length;
    var range = voxelRange(layer);
    var span = range[1] > range[0] ? range[1] - range[0] : 1;
    var order = [];
    for (var i = 0; i < count; ++i) order.push(i);
    order.sort(function (a, b) { return layer.centers[3 * a + sliceAxis] - layer.centers[3 * b + sliceAxis]; });
    var cube = new THREE.BoxBufferGeometry(layer.size, layer.size, layer.size).toNonIndexed();
    var cubePositions = cube.attributes.position.array, cubeNormals = cube.attributes.normal.array;
    var per = cubePositions.length;
    var positions = new Float32Array(per * count), normals = new Float32Array(per * count);
    var colors = new Float32Array(per * count);
    var keys = [];
    order.forEach(function (v, k) {
      var c = layer.centers, color = colorMap((layer.values[v] - range[0]) / span);
      keys.push(c[3 * v + sliceAxis]);
      for (var j = 0; j < per; j += 3) {
        for (var d = 0; d < 3; ++d) {
          positions[k * per + j + d] = cubePositions[j + d] + c[3 * v + d];
          normals[k * per + j + d] = cubeNormals[j + d];
        }
        colors[k * per + j] = color.r; colors[k * per + j + 1] = color.g; colors[k * per + j + 2] = color.b;
      }
    });
    var geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
    geometry.setAttribute('normal', new THREE.BufferAttribute(normals, 3));
    geometry.setAttribute('color', new THREE.BufferAttribute(colors, 3));
    var mesh = new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({vertexColors: THREE.VertexColors}));
    return {object: mesh, slice: function (limit) {
      var shown = 0;
      while (shown < keys.length && keys[shown] <= limit) ++shown;
      geometry.setDrawRange(0, shown * per / 3);
    }, keys: keys, range: range, count: count};
  }

  var kBuilders = {figure: buildFigure, points: buildPoints, poses: buildPoses, rays: buildRays,
                   path: buildPath, plane: buildPlane, cone: buildCone, box: buildBox,
                   sphere: buildSphere, capsule: buildCapsule};
  var kDefaultColors = {figure: '#4477aa', points: '#dd3333', poses: '#333333', rays: '#aa33aa',
                        path: '#228833', plane: '#888888', cone: '#ccbb44', box: '#66ccee',
                        sphere: '#ee6677', capsule: '#ee6677', voxels: '#21918c'};

  // ---- the viewer ----
  function Viewer(container, scene) {
    this.container = container;
    this.scene = scene;
    this.viewIndex = 0;
    this.frame = 0;
    this.sideBySide = false;
    this.hidden = {};
    this.sliceAxis = 0;
    this.timer = null;
    this.selectedRow = null;
    this.buildPage();
    this.buildTable();
    this.showView(0);
  }

  Viewer.prototype.buildPage = function () {
    var self = this, scene = this.scene;
    var top = el('div', 'iklab-toolbar');
    if (scene.title) this.container.appendChild(el('div', 'iklab-scene-title', scene.title));
    // The view list: pick a trial.
    this.viewSelect = el('select', 'iklab-view-select');
    this.viewSelect.setAttribute('aria-label', 'view');
    scene.views.forEach(function (view, i) {
      var option = el('option', '', view.name !== undefined ? view.name : 'view ' + (i + 1));
      option.value = String(i);
      self.viewSelect.appendChild(option);
    });
    this.viewSelect.addEventListener('change', function () { self.showView(Number(self.viewSelect.value)); });
    var viewLabel = el('label', '', 'View ');
    viewLabel.appendChild(this.viewSelect);
    top.appendChild(viewLabel);
    // Overlay or side by side.
    this.sideLabel = el('label', 'iklab-side-by-side');
    this.sideBox = el('input');
    this.sideBox.type = 'checkbox';
    this.sideBox.addEventListener('change', function () {
      self.sideBySide = self.sideBox.checked;
      self.rebuild(true);
    });
    this.sideLabel.appendChild(this.sideBox);
    this.sideLabel.appendChild(document.createTextNode(' side by side'));
    top.appendChild(this.sideLabel);
    // The view as drawn (this frame, the layers turned on) as a glTF file.
    if (THREE.GLTFExporter) {
      var download = el('button', 'iklab-gltf', 'download glTF');
      download.type = 'button';
      download.addEventListener('click', function () { self.downloadGltf(); });
      top.appendChild(download);
    }
    this.container.appendChild(top);

    var stage = el('div', 'iklab-stage');
    this.renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.renderer.setClearColor(0xf4f4f4);
    this.canvas = this.renderer.domElement;
    this.canvas.className = 'iklab-canvas';
    stage.appendChild(this.canvas);
    this.legend = el('div', 'iklab-legend');
    stage.appendChild(this.legend);
    this.container.appendChild(stage);

    // Animation: frame slider and play button.
    this.player = el('div', 'iklab-player');
    this.playButton = el('button', 'iklab-play', 'play');
    this.playButton.type = 'button';
    this.playButton.addEventListener('click', function () { self.togglePlay(); });
    this.slider = el('input', 'iklab-frame');
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.setAttribute('aria-label', 'frame');
    this.slider.addEventListener('input', function () { self.setFrame(Number(self.slider.value)); });
    this.frameText = el('span', 'iklab-frame-text');
    this.player.appendChild(this.playButton);
    this.player.appendChild(this.slider);
    this.player.appendChild(this.frameText);
    this.container.appendChild(this.player);

    // Voxels: colour bar and slicing slider.
    this.voxelPanel = el('div', 'iklab-voxels');
    this.container.appendChild(this.voxelPanel);

    this.table = el('div', 'iklab-view-table');
    this.container.appendChild(this.table);
    this.container.appendChild(this.structure());

    this.world = new THREE.Scene();
    this.world.add(new THREE.HemisphereLight(0xffffff, 0x666666, 0.9));
    var sun = new THREE.DirectionalLight(0xffffff, 0.5);
    sun.position.set(3, 2, 4);
    this.world.add(sun);
    var up = new THREE.Vector3().fromArray(scene.up || [0, 0, 1]);
    if (up.length() < 1e-12) up.set(0, 0, 1);
    this.up = up.normalize();
    this.camera = new THREE.PerspectiveCamera(45, 4 / 3, 0.001, 1000);
    this.camera.up.copy(this.up);
    this.controls = new THREE.OrbitControls(this.camera, this.canvas);
    this.controls.addEventListener('change', function () { self.render(); });
    this.resize();
    window.addEventListener('resize', function () { self.resize(); });
  };

  // The figures' structure in words: step (joint) and site names.
  Viewer.prototype.structure = function () {
    var details = el('details', 'iklab-structure');
    details.appendChild(el('summary', '', 'Structure'));
    this.scene.figures.forEach(function (figure) {
      var p = el('p');
      p.appendChild(el('strong', '', figure.name !== undefined ? figure.name : 'figure'));
      p.appendChild(document.createTextNode(': steps ' + figure.steps.map(function (s) {
        return String(s.name) + ' (' + s.kind + ')';
      }).join(', ') + (figure.sites.length ? '; sites ' + figure.sites.map(function (s) {
        return String(s.name);
      }).join(', ') : '')));
      details.appendChild(p);
    });
    return details;
  };

  Viewer.prototype.resize = function () {
    var width = Math.max(200, this.canvas.parentNode.clientWidth || 640);
    var height = Math.round(Math.min(560, width * 0.62));
    this.renderer.setSize(width, height);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.render();
  };

  Viewer.prototype.view = function () { return this.scene.views[this.viewIndex]; };

  Viewer.prototype.showView = function (index) {
    this.stop();
    this.viewIndex = index;
    this.frame = 0;
    var view = this.view();
    var figureLayers = view.layers.filter(function (l) { return l.type === 'figure'; }).length;
    this.sideLabel.style.display = figureLayers > 1 ? '' : 'none';
    if (figureLayers <= 1) { this.sideBySide = false; this.sideBox.checked = false; }
    this.player.style.display = view.frames > 1 ? '' : 'none';
    this.slider.max = String(view.frames - 1);
    this.slider.value = '0';
    this.hidden = {};
    this.viewSelect.value = String(index);
    if (this.selectedRow && this.selectedRow.iklabView !== index) this.selectedRow = null;
    this.highlightRows();
    this.buildLegend();
    this.rebuild(true);
  };

  Viewer.prototype.buildLegend = function () {
    var self = this;
    this.legend.textContent = '';
    this.view().layers.forEach(function (layer, i) {
      var row = el('label', 'iklab-legend-row');
      var box = el('input');
      box.type = 'checkbox';
      box.checked = true;
      box.addEventListener('change', function () {
        self.hidden[i] = !box.checked;
        self.applyVisibility();
        self.render();
      });
      var swatch = el('span', 'iklab-swatch');
      swatch.style.background = '#' + colorOf(layer, kDefaultColors[layer.type]).getHexString();
      row.appendChild(box);
      row.appendChild(swatch);
      row.appendChild(el('span', 'iklab-legend-label',
                         layer.label !== undefined ? layer.label : layer.type));
      self.legend.appendChild(row);
    });
  };

  // The trials table under the canvas: every view's table rows in one (the
  // columns of all views, a first column naming the view when there are
  // several). A row picks its view: click it, or focus it and press Enter.
  Viewer.prototype.buildTable = function () {
    var self = this, views = this.scene.views;
    this.table.textContent = '';
    this.tableRows = [];
    var columns = [];
    views.forEach(function (view) {
      if (!view.table) return;
      view.table.columns.forEach(function (c) { if (columns.indexOf(c) < 0) columns.push(c); });
    });
    if (!columns.length) return;
    var several = views.length > 1;
    var table = el('table');
    var head = el('tr');
    (several ? ['view'] : []).concat(columns).forEach(function (c) { head.appendChild(el('th', '', c)); });
    table.appendChild(el('thead')).appendChild(head);
    var body = el('tbody');
    views.forEach(function (view, v) {
      if (!view.table) return;
      view.table.rows.forEach(function (r) {
        var cells = Array.isArray(r) ? r : [r];
        var tr = el('tr');
        tr.iklabView = v;
        if (several) {
          tr.appendChild(el('td', 'iklab-row-view', view.name !== undefined ? view.name : 'view ' + (v + 1)));
          tr.className = 'iklab-pick';
          tr.tabIndex = 0;
          tr.title = 'show this view';
          tr.addEventListener('click', function () { self.pickRow(tr); });
          tr.addEventListener('keydown', function (e) {
            if (e.key === 'Enter') { e.preventDefault(); self.pickRow(tr); }
          });
        }
        columns.forEach(function (c) {
          var i = view.table.columns.indexOf(c);
          tr.appendChild(el('td', '', i >= 0 && i < cells.length ? cells[i] : ''));
        });
        body.appendChild(tr);
        self.tableRows.push(tr);
      });
    });
    table.appendChild(body);
    this.table.appendChild(table);
  };

  // Shows the row's view and highlights the row.
  Viewer.prototype.pickRow = function (row) {
    this.selectedRow = row;
    if (row.iklabView !== this.viewIndex) this.showView(row.iklabView);
    this.highlightRows();
  };

  // The current view's rows are highlighted; the picked one is marked.
  Viewer.prototype.highlightRows = function () {
    var self = this;
    (this.tableRows || []).forEach(function (tr) {
      tr.classList.toggle('iklab-row-current', tr.iklabView === self.viewIndex);
      tr.classList.toggle('iklab-row-selected', tr === self.selectedRow);
      if (tr === self.selectedRow) tr.setAttribute('aria-current', 'true');
      else tr.removeAttribute('aria-current');
    });
    // Keep the current view's first row in sight in a long table.
    var first = (this.tableRows || []).filter(function (tr) { return tr.iklabView === self.viewIndex; })[0];
    if (first && !this.selectedRow) this.table.scrollTop = Math.max(0, first.offsetTop - 30);
  };

  // The horizontal axis along which side-by-side lanes are shifted.
  Viewer.prototype.sideAxis = function () {
    var x = new THREE.Vector3(1, 0, 0);
    if (Math.abs(x.dot(this.up)) > 0.9) x.set(0, 1, 0);
    return x.sub(this.up.clone().multiplyScalar(x.dot(this.up))).normalize();
  };

  // Builds the view's objects: one lane (overlay) or one lane per figure
  // layer, each with every non-figure layer (its goals), shifted sideways.
  Viewer.prototype.rebuild = function (frameCamera) {
    var self = this, view = this.view(), scene = this.scene;
    if (this.root) this.world.remove(this.root);
    this.root = new THREE.Group();
    this.items = [];
    this.voxels = null;
    var lanes = [null];
    if (this.sideBySide) {
      lanes = [];
      view.layers.forEach(function (l, i) { if (l.type === 'figure') lanes.push(i); });
    }
    var laneGroups = [];
    lanes.forEach(function (figureIndex) {
      var lane = new THREE.Group();
      view.layers.forEach(function (layer, i) {
        if (figureIndex !== null && layer.type === 'figure' && i !== figureIndex) return;
        var item;
        if (layer.type === 'voxels') {
          item = buildVoxels(scene, layer, self.sliceAxis);
          if (!self.voxels) self.voxels = {layer: layer, items: []};
          self.voxels.items.push(item);
        } else {
          item = kBuilders[layer.type](scene, layer);
        }
        item.layer = i;
        lane.add(item.object);
        self.items.push(item);
      });
      laneGroups.push(lane);
      self.root.add(lane);
    });
    this.world.add(this.root);
    this.items.forEach(function (item) { if (item.update) item.update(self.frame); });
    if (laneGroups.length > 1) {
      var width = 0;
      laneGroups.forEach(function (g) {
        var size = visibleBox(g).getSize(new THREE.Vector3());
        width = Math.max(width, size.length());
      });
      var axis = this.sideAxis();
      laneGroups.forEach(function (g, k) {
        g.position.copy(axis).multiplyScalar(k * width * 1.1);
      });
    }
    this.buildVoxelPanel();
    this.applyVisibility();
    if (frameCamera) this.frameCamera();
    this.setFrame(this.frame);
  };

  Viewer.prototype.applyVisibility = function () {
    var hidden = this.hidden;
    this.items.forEach(function (item) { item.object.visible = !hidden[item.layer]; });
  };

  Viewer.prototype.frameCamera = function () {
    var box = visibleBox(this.root);
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
    var center = box.getCenter(new THREE.Vector3());
    var radius = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 1e-3);
    var side = this.sideAxis();
    var front = new THREE.Vector3().crossVectors(this.up, side).normalize();
    var direction = side.clone().multiplyScalar(-0.35).add(front.multiplyScalar(-1))
                        .add(this.up.clone().multiplyScalar(0.45)).normalize();
    var distance = radius / Math.sin(this.camera.fov * Math.PI / 360) * 1.05;
    this.camera.position.copy(center).add(direction.multiplyScalar(distance));
    this.camera.near = distance / 100;
    this.camera.far = distance * 100;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(center);
    this.controls.update();
  };

  Viewer.prototype.buildVoxelPanel = function () {
    var self = this, panel = this.voxelPanel;
    panel.textContent = '';
    if (!this.voxels) { panel.style.display = 'none'; return; }
    panel.style.display = '';
    var layer = this.voxels.layer, first = this.voxels.items[0];
    var range = first.range;
    // Colour bar with the value's name and range.
    var bar = el('canvas', 'iklab-colorbar');
    bar.width = 240; bar.height = 14;
    var g = bar.getContext('2d');
    for (var x = 0; x < bar.width; ++x) {
      g.fillStyle = '#' + colorMap(x / (bar.width - 1)).getHexString();
      g.fillRect(x, 0, 1, bar.height);
    }
    var legend = el('div', 'iklab-colorbar-row');
    legend.appendChild(el('span', '', String(layer.value_name !== undefined ? layer.value_name : 'value') + ': '));
    legend.appendChild(el('span', '', formatNumber(range[0])));
    legend.appendChild(bar);
    legend.appendChild(el('span', '', formatNumber(range[1])));
    panel.appendChild(legend);
    // Slicing: show the voxels whose centre lies below the plane.
    var row = el('div', 'iklab-slice-row');
    var axisSelect = el('select', 'iklab-slice-axis');
    ['x', 'y', 'z'].forEach(function (name, i) {
      var o = el('option', '', name);
      o.value = String(i);
      axisSelect.appendChild(o);
    });
    axisSelect.value = String(this.sliceAxis);
    axisSelect.addEventListener('change', function () {
      self.sliceAxis = Number(axisSelect.value);
      self.rebuild(false);
      self.render();
    });
    var keys = first.keys;
    var lo = keys.length ? keys[0] : 0, hi = keys.length ? keys[keys.length - 1] : 0;
    var slider = el('input', 'iklab-slice');
    slider.type = 'range';
    slider.min = '0'; slider.max = '1000'; slider.value = '1000';
    slider.setAttribute('aria-label', 'slice');
    var text = el('span', 'iklab-slice-text');
    function apply() {
      var limit = lo + (hi - lo) * Number(slider.value) / 1000;
      var tolerance = 1e-9 * Math.max(1, Math.abs(lo), Math.abs(hi));
      self.voxels.items.forEach(function (item) { item.slice(limit + tolerance); });
      text.textContent = 'shown up to ' + ['x', 'y', 'z'][self.sliceAxis] + ' = ' + formatNumber(limit);
      self.render();
    }
    slider.addEventListener('input', apply);
    row.appendChild(el('span', '', 'Slice along '));
    row.appendChild(axisSelect);
    row.appendChild(slider);
    row.appendChild(text);
    panel.appendChild(row);
    apply();
  };

  function formatNumber(v) { return Math.abs(v) < 1e-12 ? '0' : Number(v).toPrecision(3); }

  Viewer.prototype.setFrame = function (frame) {
    var view = this.view();
    this.frame = Math.max(0, Math.min(view.frames - 1, frame | 0));
    var f = this.frame;
    this.items.forEach(function (item) { if (item.update) item.update(f); });
    this.slider.value = String(f);
    this.frameText.textContent = 'frame ' + (f + 1) + ' of ' + view.frames;
    this.render();
  };

  Viewer.prototype.togglePlay = function () {
    if (this.timer) { this.stop(); return; }
    var self = this, view = this.view();
    var ms = Math.max(10, 1000 * (view.frame_seconds > 0 ? view.frame_seconds : 1 / 30));
    this.playButton.textContent = 'pause';
    this.timer = setInterval(function () { self.setFrame((self.frame + 1) % view.frames); }, ms);
  };

  Viewer.prototype.stop = function () {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.playButton) this.playButton.textContent = 'play';
  };

  // Exports the drawn objects to binary glTF (a .glb file) in `done(buffer)`.
  Viewer.prototype.exportGltf = function (done) {
    new THREE.GLTFExporter().parse(this.root, done, {binary: true, onlyVisible: true});
  };

  Viewer.prototype.downloadGltf = function () {
    var name = String(this.view().name !== undefined ? this.view().name : 'view')
                   .replace(/[^A-Za-z0-9._-]+/g, '_');
    this.exportGltf(function (buffer) {
      var link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([buffer], {type: 'model/gltf-binary'}));
      link.download = name + '.glb';
      document.body.appendChild(link);
      link.click();
      setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
    });
  };

  Viewer.prototype.render = function () {
    if (this.root) this.renderer.render(this.world, this.camera);
  };

  // ---- start every viewer of the page ----
  function showError(container, message) {
    container.textContent = '';
    var box = el('div', 'iklab-scene-error');
    box.setAttribute('role', 'alert');
    box.appendChild(el('strong', '', 'This 3D scene cannot be shown. '));
    box.appendChild(document.createTextNode(message));
    container.appendChild(box);
    container.setAttribute('data-status', 'error');
  }

  function webglAvailable() {
    try {
      var c = document.createElement('canvas');
      return !!(window.WebGLRenderingContext && (c.getContext('webgl') || c.getContext('experimental-webgl')));
    } catch (e) {
      return false;
    }
  }

  function start(script) {
    var container = script.parentNode;
    var scene;
    try {
      scene = JSON.parse(script.textContent);
    } catch (e) {
      showError(container, 'The scene file is damaged: it is not valid JSON (' + e.message + ').');
      return;
    }
    try {
      validateScene(scene);
    } catch (e) {
      if (!(e instanceof SceneError)) throw e;
      showError(container, e.message);
      return;
    }
    if (typeof THREE === 'undefined' || !THREE.OrbitControls) {
      showError(container, 'three.js did not load (the assets folder next to this page is missing).');
      return;
    }
    if (!webglAvailable()) {
      showError(container, 'This browser cannot draw 3D (WebGL is off or unavailable).');
      return;
    }
    var viewer = new Viewer(container, scene);
    container.iklabViewer = viewer;
    container.setAttribute('data-status', 'ready');
  }

  function startAll() {
    var scripts = document.querySelectorAll('script.iklab-scene');
    for (var i = 0; i < scripts.length; ++i) start(scripts[i]);
    document.documentElement.setAttribute('data-iklab-viewers', 'done');
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', startAll);
  } else {
    startAll();
  }
})();
