import { at, type GateDiscoverer, lineOf } from '../gate.js';

export const cargoDiscoverer: GateDiscoverer = {
  name: 'Cargo.toml',
  async discover(files) {
    const text = await files.read('Cargo.toml');
    if (!text) return [];
    const workspace = /^\[workspace\]/m.test(text);
    const line = lineOf(text, /^\[(package|workspace)\]/);
    const scope = workspace ? ' --workspace' : '';
    return [
      { name: 'clippy', command: `cargo clippy${scope} --all-targets`, kind: 'lint', source: at('Cargo.toml', line) },
      { name: 'cargo test', command: `cargo test${scope}`, kind: 'test', source: at('Cargo.toml', line) },
    ];
  },
};
