// HIP-over-CUDA self-test (being written).
int main() { return 77; }
