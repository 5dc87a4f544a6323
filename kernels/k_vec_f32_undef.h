/* Undoes k_vec_f32.h, so that the next instruction set can define its own. */
#undef VT
#undef VL
#undef VZERO
#undef VLOAD
#undef VSET1
#undef VFMA
#undef VADD
#undef VSTORE
#undef VSTORE_N
#undef VLOAD_N
