// An op library of the emulator has no code of its own: the ops come from ascend_emu_ops
// (whole archive) and its version script decides which of them it exports.
