// The type of every bound entry point, derived from driver-kit's entry-point table: each JS
// argument's type comes from its parameter's kind (parameter-values.ts), so a call with the
// wrong arguments fails to compile.
import type {
  CalledEntryPointSymbol,
  EntryPointParameter,
  EntryPointTable,
  ParameterKind,
} from '@cumem/driver-kit';
import type { ParameterValues } from './parameter-values.js';

export type { EntryPointName } from '@cumem/driver-kit';

type KindOf<P extends EntryPointParameter> = P[0] extends ParameterKind ? P[0] : never;
type JsArguments<P extends readonly EntryPointParameter[]> = {
  -readonly [I in keyof P]: ParameterValues[KindOf<P[I]>];
};

/**
 * A bound function: returns the CUresult. (koffi's `.async` is deliberately not used: settling it
 * into a terminated Worker aborts the process; see completion-poll.ts.)
 */
export type BoundFunction<P extends readonly EntryPointParameter[]> = (...args: JsArguments<P>) => number;

/** Every bound entry point; optional ones are undefined when the library lacks the symbol. */
export type Bindings = {
  readonly [S in CalledEntryPointSymbol]: EntryPointTable[S]['optional'] extends true
    ? BoundFunction<EntryPointTable[S]['parameters']> | undefined
    : BoundFunction<EntryPointTable[S]['parameters']>;
};
