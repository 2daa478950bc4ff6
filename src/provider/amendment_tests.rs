//! `[[amend]]` on a project inherited through `extends`: the keys that turn the skip of
//! unchanged dependents off and give a preview mock outputs reach that project.

use super::{ProjectPath, ProviderCatalog};
use crate::config::RepositoryRoot;

#[test]
fn an_amendment_sets_always_run_and_mock_outputs_of_an_inherited_project() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("providers/common")).unwrap();
    std::fs::write(
        dir.path().join("providers/common/shared.toml"),
        "[[project]]\npath = \"net\"\nphase = \"infrastructure\"\n[[project]]\npath = \"app\"\nphase = \"infrastructure\"\ndepends_on = [\"net\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("providers/mine.toml"),
        "description = \"d\"\nextends = \"shared\"\n[[amend]]\npath = \"net\"\nmock_outputs = { cidr = \"10.0.0.0/16\", zones = 3 }\n[[amend]]\npath = \"app\"\nalways_run = true\n",
    )
    .unwrap();
    let provider = ProviderCatalog::new(RepositoryRoot::at(dir.path()).unwrap()).load("mine", None).unwrap();
    let net = provider.project(&ProjectPath::new("net")).unwrap();
    assert_eq!(net.mock_outputs["cidr"], "10.0.0.0/16");
    assert_eq!(net.mock_outputs["zones"], 3);
    assert!(!net.always_run);
    assert!(provider.project(&ProjectPath::new("app")).unwrap().always_run);
}
