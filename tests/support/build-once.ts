import { ensureBuild } from '../../scripts/ensure-build.mjs';

export default function setup(): void {
  ensureBuild();
}
