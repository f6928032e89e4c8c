/* The README's example as a program: SUM over axis 0 of a 3x3 FLOAT32 tensor. Prints the result
 * and exits 0 when it is [[6, 6, 9]]. */
#include <stdio.h>

#include <dmlcpu.h>

int main(void)
{
    /* [[1,2,3],[3,0,4],[2,4,2]] -> [[6,6,9]] */
    float x[9] = {1, 2, 3, 3, 0, 4, 2, 4, 2}, y[3];
    uint32_t in_sizes[2] = {3, 3}, out_sizes[2] = {1, 3}, axes[1] = {0};
    dmlcpu_tensor_desc in = {DMLCPU_DATA_TYPE_FLOAT32, 2, in_sizes, NULL, 0};
    dmlcpu_tensor_desc out = {DMLCPU_DATA_TYPE_FLOAT32, 2, out_sizes, NULL, 0};
    dmlcpu_reduce_operator_desc reduce = {DMLCPU_REDUCE_FUNCTION_SUM, &in, &out, 1, axes};
    dmlcpu_operator_desc desc = {DMLCPU_OPERATOR_REDUCE, &reduce};

    dmlcpu_operator *op;
    if (dmlcpu_create_operator(&desc, NULL, &op) != DMLCPU_STATUS_OK) {
        fprintf(stderr, "%s\n", dmlcpu_last_error_message());
        return 1;
    }
    dmlcpu_binding_properties props;
    dmlcpu_get_binding_properties(op, &props); /* 1 input, 1 output, temporary size */
    if (props.temporary_size_in_bytes != 0) {
        fprintf(stderr, "unexpected temporary buffer of %llu bytes\n",
                (unsigned long long)props.temporary_size_in_bytes);
        return 1;
    }
    dmlcpu_buffer_binding ib = {x, sizeof x}, ob = {y, sizeof y};
    dmlcpu_bindings b = {1, &ib, 1, &ob, {NULL, 0}};
    dmlcpu_status st = dmlcpu_execute(op, &b); /* any number of times, from any thread */
    if (st != DMLCPU_STATUS_OK)
        fprintf(stderr, "%s: %s\n", dmlcpu_status_string(st), dmlcpu_last_error_message());
    dmlcpu_destroy_operator(op);
    if (st != DMLCPU_STATUS_OK)
        return 1;
    printf("[[%g, %g, %g]] on %s\n", y[0], y[1], y[2], dmlcpu_isa_name(dmlcpu_detected_isa()));
    return y[0] == 6 && y[1] == 6 && y[2] == 9 ? 0 : 1;
}
