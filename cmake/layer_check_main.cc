// The program every layer check links a library into (cmake/Layers.cmake): it calls
// nothing; the link itself is the check.
int main() { return 0; }
