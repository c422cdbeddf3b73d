#include "families.h"

void
families_register(void)
{
	nlctrl_register();
	dp_family_register();
	vport_family_register();
	flow_family_register();
	packet_family_register();
	meter_family_register();
	ct_limit_family_register();
}
