import { at, type GateDiscoverer, lineOf } from '../gate.js';

export const cargoDiscoverer: GateDiscoverer = {
  name: 'Cargo.toml',
  async discover(files) {
    const text = await files.read('Cargo.toml');
    if (!text) return [];
    const workspace = /^\[workspace\]/m.test(text);
    const line = lineOf(text, /^\[(package|workspace)\]/);
    const scope = workspace ? ' --workspace' : '';
    // A project that configures nextest runs its suite with it (.config/nextest.toml is its config file).
    const nextest = (await files.read('.config/nextest.toml')) !== undefined;
    return [
      { name: 'clippy', command: `cargo clippy${scope} --all-targets`, kind: 'lint', source: at('Cargo.toml', line) },
      nextest
        ? { name: 'cargo nextest', command: `cargo nextest run${scope}`, kind: 'test', source: '.config/nextest.toml' }
        : { name: 'cargo test', command: `cargo test${scope}`, kind: 'test', source: at('Cargo.toml', line) },
    ];
  },
};
