/**
 * The DEMO AGENT — a scripted stand-in for a language model, used by `npm run demo` and `--agent demo`.
 * It is not an AI: it knows the three stories of the demo repository and performs their edits the way a
 * real agent would (files and a claim; star-loop commits them), including one honest mistake so the demo can
 * show star-loop rejecting a claim whose gate fails. It follows only the public agent contract: the prompt on
 * stdin, STAR_* environment variables, and the claim file.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const say = (text: string) => process.stdout.write(`[demo agent] ${text}\n`);

function claim(complete: boolean, summary: string, notes = ''): void {
  const file = process.env.STAR_CLAIM_FILE;
  if (file)
    writeFileSync(file, `${JSON.stringify({ complete, story: process.env.STAR_STORY_ID, summary, notes }, null, 2)}\n`);
}

function append(file: string, text: string): void {
  writeFileSync(file, readFileSync(file, 'utf8') + text);
}

function replace(file: string, from: string, to: string): void {
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
}

/** A node:test case with these assertions, as the demo agent appends it to the test file. */
const testCase = (name: string, ...assertions: string[]) =>
  `\ntest('${name}', () => {\n${assertions.map((a) => `  ${a};\n`).join('')}});\n`;

const TESTS = {
  subtract: testCase('subtract', 'assert.equal(subtract(5, 3), 2)', 'assert.equal(subtract(3, 5), -2)'),
  multiply: testCase('multiply', 'assert.equal(multiply(4, 3), 12)', 'assert.equal(multiply(-2, 3), -6)'),
  divide: testCase('divide', 'assert.equal(divide(12, 4), 3)', 'assert.throws(() => divide(1, 0), /division by zero/)'),
};

function addImport(name: string): void {
  replace('test/calc.test.js', 'import { ', `import { ${name}, `);
}

// A stream, not readFileSync(0): that can fail with EAGAIN on a pipe when the machine is busy.
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const prompt = Buffer.concat(chunks).toString('utf8');
if (process.env.STAR_ROLE === 'verifier') {
  // As the adversarial verifier it re-runs the gate itself, as the real verifier prompt asks, and decides on that.
  let passed = true;
  try {
    execFileSync('npm', ['test', '--silent'], { stdio: 'ignore' });
  } catch {
    passed = false;
  }
  const verdict = passed
    ? { verdict: 'accept', findings: [] }
    : {
        verdict: 'reject',
        findings: [{ rule: 'tests-fail', file: 'test/calc.test.js', detail: '`npm test` fails when I run it' }],
      };
  writeFileSync(process.env.STAR_VERDICT_FILE ?? '.star/verdict.json', JSON.stringify(verdict));
  say(`verifier: ran \`npm test\` myself and read the diff — ${verdict.verdict}`);
  process.exit(0);
}
const rejected = prompt.includes('Your last claim was rejected');
const story = process.env.STAR_STORY_ID ?? '';
say(
  `iteration ${process.env.STAR_ITERATION ?? '?'}: read a prompt of ${prompt.length} characters; story ` +
    `${story || '(none)'}`,
);

switch (story) {
  case 'US-001': {
    append('src/calc.js', '\nexport function subtract(a, b) {\n  return a - b;\n}\n');
    addImport('subtract');
    append('test/calc.test.js', TESTS.subtract);
    say('added subtract() with a test, ran `npm test` in my head');
    claim(true, 'added subtract() and its test');
    break;
  }
  case 'US-002': {
    if (!rejected) {
      // The honest mistake: the sign is lost. The story's own test catches it; star-loop's gate run will too.
      append('src/calc.js', '\nexport function multiply(a, b) {\n  return Math.abs(a * b);\n}\n');
      addImport('multiply');
      append('test/calc.test.js', TESTS.multiply);
      say('added multiply() with a test; I am confident it is done');
      claim(true, 'added multiply() and its test');
    } else {
      say('my last claim was rejected: the test gate shows multiply(-2, 3) returned 6 — fixing the sign');
      replace('src/calc.js', 'return Math.abs(a * b);', 'return a * b;');
      claim(true, 'fixed multiply() for negative numbers');
    }
    break;
  }
  case 'US-003': {
    append(
      'src/calc.js',
      "\nexport function divide(a, b) {\n  if (b === 0) throw new Error('division by zero');\n  return a / b;\n}\n",
    );
    addImport('divide');
    append('test/calc.test.js', TESTS.divide);
    // Like agents driven by other Ralph runners, it marks the story done itself: star-loop treats that as a claim.
    replace('prd.json', '"passes": false', '"passes": true');
    say('added divide() with a zero check, set passes to true in prd.json');
    process.stdout.write('All stories are done.\n<promise>COMPLETE</promise>\n');
    break;
  }
  default:
    say(
      `I am a scripted demo, not a language model: I only know the demo repository's stories (US-001 to US-003), ` +
        `not "${story}". Doing nothing.`,
    );
    claim(false, 'demo agent: unknown story, nothing done');
}
