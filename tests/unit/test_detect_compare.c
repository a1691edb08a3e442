/* Declared vs detected NICs: a link a few per cent under the declared rate is a warning (a
 * topology written loosely), a link a rate step down (200 -> 100 Gb/s) an error, an equal one
 * nothing - and the adjusted topology carries the rate that is there. */
#include <string.h>

#include "detect/sc_detect.h"
#include "sc_test.h"

static int nic_findings(double declared, double detected, const char *severity)
{
    sc_topology_t t, actual;
    memset(&t, 0, sizeof(t));
    t.gpus_per_node = 1;
    t.nodes = 1;
    t.nics = 1;
    t.nic_gbps = declared;
    sc_detected_t d;
    memset(&d, 0, sizeof(d));
    strcpy(d.host, "h1");
    d.gpus = 1;
    d.nvlinks_up = -1;
    d.nics = 1;
    d.nic_gbps = detected;
    sc_findings_t list = {0};
    sc_detect_compare(&t, &d, 1, 1, &actual, &list);
    int n = 0;
    for (size_t i = 0; i < list.n; i++)
        n += strstr(list.items[i].what, "NIC slower") != NULL &&
             strcmp(list.items[i].severity, severity) == 0;
    sc_list_free(&list);
    return n;
}

int main(void)
{
    SC_EXPECT(nic_findings(200, 200, "warning") == 0 && nic_findings(200, 200, "error") == 0);
    SC_EXPECT(nic_findings(11, 10, "warning") == 1 && nic_findings(11, 10, "error") == 0);
    SC_EXPECT(nic_findings(200, 100, "error") == 1 && nic_findings(200, 100, "warning") == 0);
    return sc_test_done("test_detect_compare");
}
