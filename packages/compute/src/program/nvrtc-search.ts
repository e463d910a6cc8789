// Where libnvrtc is looked for, in order: an explicit path, the CUDA toolkit (CUDA_HOME,
// CUDA_PATH, /usr/local/cuda), the pip wheels Python users have (nvidia-cuda-nvrtc-cu12:
// nvidia/cuda_nvrtc/lib; the CUDA 13 wheels: nvidia/cu13/lib) in the active virtual environment
// and the usual site-packages, then the system loader's own search by soname (LD_LIBRARY_PATH,
// ldconfig). CUDA 13's library first: it compiles for every architecture 12's does but the oldest.
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The sonames tried, newest first. */
export const nvrtcSonames = ['libnvrtc.so.13', 'libnvrtc.so.12'] as const;

function pythonSitePackages(env: NodeJS.ProcessEnv): string[] {
  const roots = [env.VIRTUAL_ENV, env.CONDA_PREFIX, join(homedir(), '.local'), '/usr/local', '/usr'].filter(
    (root): root is string => typeof root === 'string' && root.length > 0,
  );
  const sites: string[] = [];
  for (const root of roots) {
    const lib = join(root, 'lib');
    let entries: string[] = [];
    try {
      entries = readdirSync(lib).filter((name) => /^python3\.\d+$/.test(name));
    } catch {
      continue;
    }
    for (const python of entries) {
      for (const kind of ['site-packages', 'dist-packages']) sites.push(join(lib, python, kind));
    }
  }
  return sites;
}

/**
 * The candidates, each a full path (found on disk) or a bare soname (for the system loader).
 * `explicit` (CUMEM_NVRTC_PATH or the caller's path) comes first when given.
 */
export function nvrtcCandidates(env: NodeJS.ProcessEnv = process.env, explicit?: string): string[] {
  const candidates: string[] = [];
  if (explicit) candidates.push(explicit);
  const directories: string[] = [];
  for (const root of [env.CUDA_HOME, env.CUDA_PATH, '/usr/local/cuda']) {
    if (root)
      directories.push(join(root, 'lib64'), join(root, 'lib'), join(root, 'targets', 'x86_64-linux', 'lib'));
  }
  for (const site of pythonSitePackages(env)) {
    directories.push(join(site, 'nvidia', 'cu13', 'lib'), join(site, 'nvidia', 'cuda_nvrtc', 'lib'));
  }
  for (const directory of directories) {
    for (const soname of nvrtcSonames) {
      const path = join(directory, soname);
      if (existsSync(path) && !candidates.includes(path)) candidates.push(path);
    }
  }
  candidates.push(...nvrtcSonames);
  return candidates;
}
