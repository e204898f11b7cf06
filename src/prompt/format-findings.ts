import type { Finding } from '../state/finding-schema.js';

const MAX_OUTPUT_CHARS = 2000;
const MAX_FINDINGS = 6;

/** Findings as text for the next prompt: verbatim, but bounded whatever the gates printed. */
export function formatFindings(findings: readonly Finding[]): string {
  const shown = findings.slice(0, MAX_FINDINGS).map((f) => {
    const where = f.file ? ` ${f.file}${f.line ? `:${f.line}` : ''}` : '';
    const head = `- [${f.rule}]${where} ${f.detail}`;
    if (!f.output) return head;
    const output = f.output.length > MAX_OUTPUT_CHARS ? `…${f.output.slice(-MAX_OUTPUT_CHARS)}` : f.output;
    return `${head}\n\n\`\`\`\n${output.trimEnd()}\n\`\`\``;
  });
  if (findings.length > MAX_FINDINGS)
    shown.push(`- … and ${findings.length - MAX_FINDINGS} more (see .star/report.md)`);
  return shown.join('\n\n');
}
