/**
 * Types of the engine's model summary, re-exported from the wasm package's d.ts (generated
 * from the Rust structs with tsify), so the page cannot drift from the engine. Both builds
 * (simd / nosimd) export the same types.
 */
export type {
  Arithmetic,
  AutoSettings,
  DefaultLimits,
  EngineLimits,
  InputShape,
  InputShapes,
  IoInfo,
  MetadataSummary,
  ModelCheck,
  ModelSummary,
  MultiplierSteps,
  NamedTensor,
  OpCount,
  OperatorSummary,
  QuantSummary,
  QuantSteps,
  QuantizeSettings,
  Report,
  SignatureSummary,
  SubgraphSummary,
  TensorError as TensorComparison,
  TensorSummary,
  UnrunnableOp,
} from '../../pkg/simd/zeropoint.js';
