// `node --import ./use-reference.mjs quickstart.mjs`: the README's program on the reference driver.
import { useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';

useDriver(createReferenceDriver());
