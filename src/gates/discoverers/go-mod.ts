import { at, type GateDiscoverer, lineOf } from '../gate.js';

export const goModDiscoverer: GateDiscoverer = {
  name: 'go.mod',
  async discover(files) {
    const text = await files.read('go.mod');
    if (!text) return [];
    const line = lineOf(text, /^module\s/);
    return [
      { name: 'go vet', command: 'go vet ./...', kind: 'typecheck', source: at('go.mod', line) },
      { name: 'go test', command: 'go test ./...', kind: 'test', source: at('go.mod', line) },
    ];
  },
};
