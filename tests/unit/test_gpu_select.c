/* GPU choice per rank: local rank by default, --device when given, and the one-line reasons
 * when there is no GPU, too few GPUs, or a device that does not exist. */
#include <string.h>

#include "comm/sc_gpu_select.h"
#include "sc_test.h"

int main(void)
{
    char why[256];
    int dev = -1;
    SC_EXPECT(sc_gpu_select(-1, 8, 3, 8, "n1", NULL, &dev, why, sizeof(why)) == SC_OK);
    SC_EXPECT(dev == 3);
    SC_EXPECT(sc_gpu_select(5, 8, 0, 1, "n1", NULL, &dev, why, sizeof(why)) == SC_OK);
    SC_EXPECT(dev == 5);

    SC_EXPECT(sc_gpu_select(-1, 0, 0, 1, "n1", "CUDA driver version is insufficient", &dev, why,
                            sizeof(why)) == SC_ERR_UNSUPPORTED);
    SC_EXPECT(strcmp(why, "no CUDA device on host n1: CUDA driver version is insufficient") == 0);
    SC_EXPECT(sc_gpu_select(-1, 0, 0, 1, "n2", NULL, &dev, why, sizeof(why)) == SC_ERR_UNSUPPORTED);
    SC_EXPECT(strstr(why, "no CUDA device on host n2") != NULL);

    SC_EXPECT(sc_gpu_select(-1, 4, 0, 8, "n3", NULL, &dev, why, sizeof(why)) == SC_ERR_USAGE);
    SC_EXPECT(strstr(why, "host n3 has 4 GPUs but 8 ranks") != NULL);
    SC_EXPECT(sc_gpu_select(4, 4, 0, 1, "n4", NULL, &dev, why, sizeof(why)) == SC_ERR_USAGE);
    SC_EXPECT(strstr(why, "--device: device 4 does not exist on host n4 (4 GPUs)") != NULL);
    SC_EXPECT(sc_status_exit_code(SC_ERR_UNSUPPORTED) == 2);
    return sc_test_done("test_gpu_select");
}
