#include "fixture.h"

Suite* cli_suite(void);
Suite* io_csv_suite(void);
Suite* cli_friction_suite(void);
Suite* cli_snapshot_suite(void);
Suite* cli_results_suite(void);
Suite* cli_plot_suite(void);
Suite* cli_guide_suite(void);
Suite* cli_crane_double_suite(void);
Suite* cli_cosim_suite(void);
Suite* cli_four_bar_3d_suite(void);
Suite* cli_linearize_suite(void);
Suite* cli_case_row_suite(void);
Suite* cli_signal_suite(void);
Suite* cli_edges_suite(void);

int main(void) {
  return hy_test_main(io_csv_suite(), cli_suite(), cli_friction_suite(), cli_snapshot_suite(),
                      cli_results_suite(), cli_plot_suite(), cli_guide_suite(),
                      cli_crane_double_suite(), cli_cosim_suite(), cli_four_bar_3d_suite(),
                      cli_linearize_suite(), cli_case_row_suite(), cli_signal_suite(),
                      cli_edges_suite(), NULL);
}
