/**
 * Where local pipelines synthesize the demo stack: one cloud assembly, each pipeline's stack in a
 * stage of its own (its own template and settings), every stage's assets in the one directory
 * they share. Pipelines that differ only in settings have the same consumer code, so CDK's asset
 * cache bundles it once for all of them (esbuild, 1-2 s and a screenful of output each time).
 *
 * The template is the stack's template outside a stage but for one id that CDK derives from the
 * construct path, which in a stage includes the stage's id: the event source mapping's logical id
 * (PipelineConsumerSqsEventSourcePipeline1PoisonQuarantineDemoPipelineSource...).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Stage } from 'aws-cdk-lib';
import { DemoStack, type DemoStackProps } from '../lib/demo-stack';

export class DemoAssembly {
  private readonly outdir = mkdtempSync(path.join(tmpdir(), 'pq-cdk-out-'));
  // The CDK CLI turns asset metadata on itself; an in-process app must ask for it, or the
  // function's code directory (aws:asset:path) is not recorded.
  private readonly app = new App({ outdir: this.outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  private stages = 0;

  /** Synthesizes one pipeline's stack; returns the directory of its cloud assembly. */
  synthesize(
    stackName: string,
    pipeline: DemoStackProps['pipeline'],
    kafka?: DemoStackProps['kafka'],
  ): string {
    this.stages += 1;
    const stage = new Stage(this.app, `Pipeline${this.stages}`);
    new DemoStack(stage, stackName, { stackName, pipeline, ...(kafka === undefined ? {} : { kafka }) });
    return stage.synth().directory;
  }

  /** Removes every stage's assembly and the shared assets: call it once no pipeline runs. */
  remove(): void {
    rmSync(this.outdir, { recursive: true, force: true });
  }
}
