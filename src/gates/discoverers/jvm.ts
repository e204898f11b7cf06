import { at, type Candidate, type GateDiscoverer, lineOf } from '../gate.js';

/**
 * Maven and Gradle: the build tool's test task, through the project's own wrapper when it has one, offline
 * (the gates have no network: a missing plugin fails at once instead of hanging on a download).
 */
export const jvmDiscoverer: GateDiscoverer = {
  name: 'Maven/Gradle',
  async discover(files) {
    const top = await files.list('.');
    const gates: Candidate[] = [];
    const pom = await files.read('pom.xml');
    if (pom !== undefined) {
      const mvn = top.includes('mvnw') ? './mvnw' : 'mvn';
      const line = lineOf(pom, /<project\b/);
      gates.push({ name: 'maven test', command: `${mvn} -B -o test`, kind: 'test', source: at('pom.xml', line) });
    }
    const build = ['build.gradle.kts', 'build.gradle'].find((f) => top.includes(f));
    if (build && gates.length === 0) {
      const gradle = top.includes('gradlew') ? './gradlew' : 'gradle';
      gates.push({ name: 'gradle test', command: `${gradle} test --offline`, kind: 'test', source: build });
    }
    return gates;
  },
};
